#!/usr/bin/env python3
"""A loopback HTTP server for the image tests: serves the files of a folder with Range support; the
first GET of a path ending in '.cut.tgz' sends half its bytes and drops the connection (a download cut
in the middle); a path ending in '.gate.tgz' sends half its bytes, then the rest once a file named like it
plus '.go' appears in the folder (a pull held in the middle for as long as a test needs); '/packages/<name>' answers an npm packument for the tarballs listed in <folder>/npm.json (with
the fields of a version's "manifest", such as "bin"), and 500 for every '/packages/<name>...' path while a file
'<name>.500' is in the folder (a server error, not a missing package).
Prints 'port N' once listening."""
import http.server
import json
import os
import sys
import threading
import time

root = sys.argv[1]
cut_done = set()
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_bytes(self, data, status=200, extra=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.startswith("/packages/"):
            return self.packument(path[10:])
        file = os.path.join(root, os.path.basename(path))
        if not os.path.isfile(file):
            return self.send_bytes(b"not found\n", 404)
        data = open(file, "rb").read()
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0])
            if start >= len(data):
                return self.send_bytes(b"", 416)
            return self.send_bytes(data[start:], 206, [("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))])
        with lock:
            first = path.endswith(".cut.tgz") and path not in cut_done
            cut_done.add(path)
        if path.endswith(".gate.tgz"):
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            while not os.path.exists(file + ".go"):
                time.sleep(0.02)
            self.wfile.write(data[len(data) // 2 :])
            return
        if first:
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_bytes(data, 200, [("Accept-Ranges", "bytes")])

    def packument(self, name):
        spec = json.load(open(os.path.join(root, "npm.json")))
        name = name.replace("%2f", "/").replace("%2F", "/")
        if os.path.isfile(os.path.join(root, name.split("/-/")[0].replace("/", "-") + ".500")):
            return self.send_bytes(b"server error\n", 500)
        if name not in spec:
            return self.send_bytes(b'{"error":"not found"}', 404)
        host = "http://127.0.0.1:%d" % self.server.server_address[1]
        versions = {v: {"name": name, "version": v, "dist": {"tarball": host + "/" + d["file"], "integrity": d["integrity"]},
                        **d.get("manifest", {})}
                    for v, d in spec[name].items()}
        self.send_bytes(json.dumps({"name": name, "versions": versions}).encode(), 200, [("Content-Type", "application/json")])


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("port", server.server_address[1], flush=True)
server.serve_forever()
