# workerd serving fetch.js on 127.0.0.1:3000
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .fetchWorker)],
  sockets = [(name = "http", address = "127.0.0.1:3000", http = (), service = "main")]
);

const fetchWorker :Workerd.Worker = (
  modules = [(name = "fetch", esModule = embed "fetch.js")],
  compatibilityDate = "2024-09-01"
);
