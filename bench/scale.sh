#!/usr/bin/env bash
# bench/scale.sh: issue 17's read-side benchmarks (make bench-scale). Each
# command is its own process, timed with /usr/bin/time -v (elapsed time and
# peak RSS). Never part of make test.
#
#   bench/scale.sh [SIZES]           default "1000 10000 100000"
#   OLD=/path/to/superstep bench/scale.sh 1000 10000
#                                    the same commands on another build too
#                                    (e.g. one built from an older commit),
#                                    side by side; a command that passes
#                                    LIMIT_MB of RSS (default 2500) is
#                                    killed and reported as such.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${*:-1000 10000 100000}
LIMIT_MB=${LIMIT_MB:-2500}
WORK=${WORK:-$(mktemp -d)}
go build -o "$WORK/superstep" .
go build -o "$WORK/scale" ./bench/scale
NEW="$WORK/superstep"

# measure LABEL CMD...: prints "LABEL  wall  cpu  peak-MB" (or "killed"):
# elapsed seconds, user+system CPU seconds (what to compare on a shared,
# loaded machine) and peak RSS, which counts the database pages bbolt maps.
measure() {
	local label=$1; shift
	local tf="$WORK/time.$$"
	/usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >"$WORK/out" 2>"$WORK/err" &
	local tpid=$! killed=""
	while kill -0 "$tpid" 2>/dev/null; do
		for c in $(pgrep -P "$tpid" || true); do
			local rss
			rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$c/status" 2>/dev/null || echo 0)
			if [ "${rss:-0}" -gt "$LIMIT_MB" ]; then kill "$c"; killed="killed above ${LIMIT_MB} MB"; fi
		done
		sleep 0.2
	done
	wait "$tpid" || true
	if [ -n "$killed" ]; then
		printf '%-34s %s\n' "$label" "$killed"
	else
		read -r secs user sys kb < <(tail -1 "$tf")
		printf '%-34s %7s s %6.2f s cpu %6d MB  %s\n' "$label" "$secs" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" $((kb / 1024)) "$(head -c 50 "$WORK/out" | tr '\n' ' ')"
	fi
}

builds() { echo "new $NEW"; if [ -n "${OLD:-}" ]; then echo "old $OLD"; fi; }

for n in $SIZES; do
	db="$WORK/s$n.db"
	[ -f "$db" ] || "$WORK/scale" gen -n "$n" -db "$db"
	mid=$("$NEW" history big --db "$db" --json | grep '"id"' | sed -n "$((n / 2))p" | sed 's/.*"id": "\(.*\)".*/\1/')
	first=$("$NEW" history big --db "$db" --json | grep '"id"' | tail -1 | sed 's/.*"id": "\(.*\)".*/\1/')
	echo "== $n checkpoints"
	while read -r name bin; do
		measure "$name history $n" "$bin" history big --db "$db"
		measure "$name show $n" "$bin" show big --db "$db"
		measure "$name show middle $n" "$bin" show big --db "$db" --checkpoint "$mid"
		measure "$name diff first middle $n" "$bin" diff big "$first" "$mid" --db "$db"
		measure "$name export $n" sh -c "'$bin' export big --db '$db' | wc -c"
	done < <(builds)
	measure "new history, planned $n" "$WORK/scale" history -graph -db "$db"
	measure "new tree $n" "$WORK/scale" tree -db "$db"
	if [ -n "${OLD:-}" ]; then measure "old tree (History) $n" "$WORK/scale" tree -full -db "$db"; fi
done

echo "== export of a 22-step thread whose 10 MB value changes each step"
"$WORK/scale" bigvalue -steps 22 -mb 10 -db "$WORK/big10.db"
while read -r name bin; do
	measure "$name export 10MB x 22 (bytes)" sh -c "'$bin' export big --db '$WORK/big10.db' | wc -c"
done < <(builds)

echo "== import of an export with 40000 roots"
"$WORK/scale" roots -n 40000 >"$WORK/roots.json"
while read -r name bin; do
	rm -f "$WORK/imp-$name.db"
	measure "$name import 40k roots" "$bin" import --db "$WORK/imp-$name.db" "$WORK/roots.json"
done < <(builds)
echo "(work files in $WORK)"
