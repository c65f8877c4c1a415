# workerd serving app.js on 127.0.0.1:3000 through the bundle harness makes at prepare time (bun build):
# workerd loads only the modules its config names, so react and react-dom cannot come from node_modules.
# React's server renderer schedules with MessageChannel, a global from the 2025 compatibility dates on.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .ssrWorker)],
  sockets = [(name = "http", address = "127.0.0.1:3000", http = (), service = "main")]
);

const ssrWorker :Workerd.Worker = (
  modules = [(name = "app", esModule = embed "build/app.js")],
  compatibilityDate = "2025-09-01"
);
