# The test scripts' shared helpers (sourced, never run). Every script counts
# its own results and ends with one line of sums, which the script that ran
# it (up to scripts/check) adds to its own:
#   result STATUS NAME [LOG]   0: "ok - NAME". 77: "skip - NAME", where NAME
#                              says why the test cannot run here; counted as
#                              skipped, neither passed nor failed. Anything
#                              else: "FAIL - NAME" and the last 15 lines of
#                              LOG (default $result_log, when set).
#   summary NAME               "NAME: N passed, N failed", and ", N skipped"
#                              when a test was; true when none failed
#   sums_line NAME P F S       that line for P passed, F failed, S skipped
#   last_sums NAME LOG         sets sum_passed, sum_failed, sum_skipped from
#                              the last "NAME: ..." sums line in LOG; false
#                              when LOG has none
#   add_sums NAME LOG WHAT     adds them; a LOG without one is a failure:
#                              "WHAT ended without a summary" (and a false
#                              status)
#   test_programs SRC BUILD    BUILD/NAME for each SRC/NAME.c that has a
#                              main() and whose first line does not say
#                              "not a test" (the helpers say so)
skip_status=77
passed=0 failed=0 skipped=0
result_log=

result() {	# result STATUS NAME [LOG]
	local log=${3:-$result_log}
	case $1 in
	0)
		echo "ok - $2"
		passed=$((passed + 1))
		;;
	"$skip_status")
		echo "skip - $2"
		skipped=$((skipped + 1))
		;;
	*)
		echo "FAIL - $2"
		if [ -n "$log" ] && [ -s "$log" ]; then
			sed 's/^/    /' "$log" | tail -n 15
		fi
		failed=$((failed + 1))
		;;
	esac
}

sums_line() {	# sums_line NAME PASSED FAILED SKIPPED
	if [ "$4" = 0 ]; then
		echo "$1: $2 passed, $3 failed"
	else
		echo "$1: $2 passed, $3 failed, $4 skipped"
	fi
}

summary() {	# summary NAME
	sums_line "$1" "$passed" "$failed" "$skipped"
	[ "$failed" = 0 ]
}

last_sums() {	# last_sums NAME LOG
	local line rest
	line=$(tr -d '\r' <"$2" | grep -aE "^$1: [0-9]+ passed, [0-9]+ failed" | tail -n1) || true
	rest=${line#"$1: "}
	[[ "$rest" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]] || return 1
	sum_passed=${BASH_REMATCH[1]}
	sum_failed=${BASH_REMATCH[2]}
	sum_skipped=${BASH_REMATCH[4]:-0}
}

add_sums() {	# add_sums NAME LOG WHAT
	if ! last_sums "$1" "$2"; then
		result 1 "$3 ended without a summary"
		return 1
	fi
	passed=$((passed + sum_passed))
	failed=$((failed + sum_failed))
	skipped=$((skipped + sum_skipped))
}

test_programs() {	# test_programs SRC BUILD
	local src
	for src in "$1"/*.c; do
		grep -q '^int main(' "$src" || continue
		head -n1 "$src" | grep -qi "not a test" && continue
		src=${src##*/}
		echo "$2/${src%.c}"
	done
}
