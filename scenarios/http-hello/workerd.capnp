# workerd serving worker.js on 127.0.0.1:3000
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .helloWorker)],
  sockets = [(name = "http", address = "127.0.0.1:3000", http = (), service = "main")]
);

const helloWorker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2024-09-01"
);
