#!/usr/bin/env bash
# make bench-soak: harness load holds CONNS concurrent keep-alive connections against the pinned C epoll server
# (tests/helpers/hello-server) for SECONDS, in open loop at one request per connection per second, and must end
# with zero errors. Prints the client's memory per connection: its RSS while holding CONNS, less its RSS
# holding 100, over the difference. One destination (address, port) takes at most as many connections as the
# ephemeral port range, so beyond PER_PORT (25,000), or the hard RLIMIT_NOFILE when it may not rise, the
# connections are split over several servers on their own ports, one client each. The clients start with a soft RLIMIT_NOFILE of 1024: harness raises its own.
# When the host's limits cannot take a size (fs.nr_open, the hard limit without CAP_SYS_RESOURCE, the port
# range), it says so and goes on with the next.
#   bench/conns.sh [SECONDS] [CONNS...]          (default: 60 10000 50000)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 50000)
harness=$top/bin/harness server=$top/build/helpers/hello-server
[ -x "$harness" ] && [ -x "$server" ] || {
	echo "bench-soak: build first (make all build/helpers/hello-server)" >&2
	exit 3
}
PER_PORT=${PER_PORT:-25000}
read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
ports_range=$((hi - lo + 1))
nr_open=$(cat /proc/sys/fs/nr_open)
out=$(mktemp -d)
pids=()
cleanup() {
	stop_servers
	rm -rf "$out"
}
trap cleanup EXIT

stop_servers() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null; done
	wait "${pids[@]+"${pids[@]}"}" 2>/dev/null
	pids=()
}

rss_kb() { awk '/^VmRSS:/{print $2}' "/proc/$1/status" 2>/dev/null; }

# Start a server that may hold n connections; sets $port.
start_server() {
	local n=$1 log=$out/server-$2
	(
		ulimit -n $((n + 1024)) || exit 3
		exec "$server" >"$log"
	) &
	pids+=($!)
	for _ in $(seq 200); do
		grep -q '^port' "$log" 2>/dev/null && break
		sleep 0.05
	done
	port=$(awk '/^port/{print $2}' "$log")
	[ -n "$port" ] || { echo "bench-soak: the server did not start" >&2; exit 3; }
}

# harness load on port with c connections for s seconds, its soft limit at 1024; sets the pid in $client.
start_client() {
	local port=$1 c=$2 s=$3 name=$4
	(ulimit -Sn 1024 && exec "$harness" load "http://127.0.0.1:$port/" -c "$c" -R "$c" -d "${s}s" --timeout 10000 \
		--json >"$out/$name.json" 2>"$out/$name.err") &
	client=$!
}

# The client's VmRSS (kB) at its largest, sampled every second until it ends.
watch_rss() {
	local pid=$1 max=0 r
	while kill -0 "$pid" 2>/dev/null; do
		r=$(rss_kb "$pid")
		[ -n "$r" ] && [ "$r" -gt "$max" ] && max=$r
		sleep 1
	done
	echo "$max"
}

errors_of() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["errors"]["total"], d["requests"])' "$1" 2>/dev/null || echo "? ?"; }

# The baseline: 100 connections, 5 s.
start_server 100 base
start_client "$port" 100 5 base
base_rss=$(watch_rss "$client")
wait "$client"
stop_servers
echo "bench-soak: baseline: the client holding 100 connections: VmRSS ${base_rss} kB"

# One process may hold at most the hard RLIMIT_NOFILE less some: without CAP_SYS_RESOURCE it cannot rise,
# and the connections are split over more server and client pairs.
hard=$(ulimit -Hn)
per_max=$PER_PORT
if [ "$hard" != unlimited ] && ! (ulimit -n $((PER_PORT + 1024))) 2>/dev/null && [ $((hard - 1024)) -lt "$per_max" ]; then
	per_max=$((hard - 1024))
	echo "bench-soak: the hard RLIMIT_NOFILE is $hard and may not rise here (no CAP_SYS_RESOURCE): at most" \
		"$per_max connections per process"
fi
status=0
for n in "${sizes[@]}"; do
	nclients=$(((n + per_max - 1) / per_max))
	per=$((n / nclients))
	if [ $((per + 1024)) -gt "$nr_open" ]; then
		echo "bench-soak: $n connections: cannot here: fs.nr_open is $nr_open (needs $((per + 1024)) per process)"
		continue
	fi
	if ! (ulimit -n $((per + 1024))) 2>/dev/null; then
		echo "bench-soak: $n connections: cannot here: the hard RLIMIT_NOFILE is $(ulimit -Hn) and may not rise" \
			"(no CAP_SYS_RESOURCE)"
		continue
	fi
	if [ "$per" -gt $((ports_range - 1000)) ]; then
		echo "bench-soak: $n connections: cannot here: $per per destination port, the ephemeral range has $ports_range"
		continue
	fi
	echo "bench-soak: $n connections for ${secs}s: $nclients server(s) and client(s) of $per, one request per connection per second"
	clients=() watchers=()
	for i in $(seq "$nclients"); do
		start_server "$per" "$n-$i"
		start_client "$port" "$per" "$secs" "c$n-$i"
		clients+=("$client")
		watch_rss "$client" >"$out/rss-$n-$i" &
		watchers+=($!)
	done
	wait "${watchers[@]}"
	maxes=()
	for i in $(seq "$nclients"); do maxes+=("$(cat "$out/rss-$n-$i")"); done
	errs=0 reqs=0
	for i in $(seq "$nclients"); do
		wait "${clients[$((i - 1))]}"
		rc=$?
		read -r e r < <(errors_of "$out/c$n-$i.json")
		[ "$rc" -eq 0 ] || { echo "bench-soak:   client $i exit $rc: $(head -3 "$out/c$n-$i.err")"; status=1; }
		[ "$e" = 0 ] || status=1
		errs=$((errs + ${e/\?/1})) reqs=$((reqs + ${r/\?/0}))
	done
	for i in $(seq "$nclients"); do
		echo "bench-soak:   client $i: $per connections, VmRSS max ${maxes[$((i - 1))]} kB:" \
			"$(((maxes[i - 1] - base_rss) * 1024 / (per - 100))) bytes per connection above the baseline"
	done
	stop_servers
	echo "bench-soak: $n connections held ${secs}s: $reqs requests, $errs errors"
done
exit $status
