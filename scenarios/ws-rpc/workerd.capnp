# workerd serving rpc.js on 127.0.0.1:3000
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .rpcWorker)],
  sockets = [(name = "http", address = "127.0.0.1:3000", http = (), service = "main")]
);

const rpcWorker :Workerd.Worker = (
  modules = [(name = "rpc", esModule = embed "rpc.js")],
  compatibilityDate = "2024-09-01"
);
