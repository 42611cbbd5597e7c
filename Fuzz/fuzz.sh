#!/usr/bin/env bash
# Coverage-guided fuzzing of the readers and the decompressing input layer with libFuzzer.
#
#   Fuzz/fuzz.sh json|csv|compressed [SECONDS] [extra libFuzzer flags]
#
# Builds .build/fuzz/sqlimport-fuzz from the reader sources and the oracle shared with
# FuzzTests (Tests/SQLImportKitTests/ReaderFuzzHarness.swift), with AddressSanitizer,
# then fuzzes TARGET for SECONDS (default 600) from Fuzz/corpus/TARGET (and, for json and
# csv, the conformance corpora). New inputs go to .build/fuzz/work-TARGET; a crash, a
# broken invariant, a hang (> 10 s) or more than 1 GiB of memory stops the run and leaves
# the input in .build/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: Fuzz/fuzz.sh json|csv|compressed [SECONDS]}
seconds=${2:-600}
shift $(( $# < 2 ? $# : 2 ))
out=.build/fuzz
mkdir -p "$out/work-$target"
sources=(Sources/SQLImportKit/Readers/*.swift Sources/SQLImportKit/Input/*.swift Sources/SQLImportKit/Records/*.swift
  Sources/SQLImportKit/Support/SourcePosition.swift Sources/SQLImportKit/Pipeline/RejectsFile.swift
  Tests/SQLImportKitTests/ReaderFuzzHarness.swift Fuzz/FuzzMain.swift)
if [[ ! -x $out/sqlimport-fuzz ]] || [[ -n $(find "${sources[@]}" -newer "$out/sqlimport-fuzz") ]]; then
  swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -module-name SQLImportFuzz \
    -I Sources/CZstd -I Sources/CZlib "${sources[@]}" -o "$out/sqlimport-fuzz" 2>&1 | grep -v "ld.gold: warning" || true
fi
seeds=(Fuzz/corpus/"$target")
case $target in
  json) [[ -d fixtures/conformance/json/test_parsing ]] && seeds+=(fixtures/conformance/json/test_parsing) ;;
  csv) [[ -d fixtures/conformance/csv/csvs ]] && seeds+=(fixtures/conformance/csv/csvs) ;;
esac
cd "$out"
SWIFT_BACKTRACE=enable=no FUZZ_TARGET=$target exec ./sqlimport-fuzz "work-$target" "${seeds[@]/#/../../}" \
  -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 "$@"
