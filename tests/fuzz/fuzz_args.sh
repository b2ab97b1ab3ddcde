# libFuzzer flags for each fuzz target, sourced by run_fuzzer.sh (ctest's short runs) and
# tools/fuzz_campaign.sh (long runs on a bigger machine), so both fuzz alike.
#   kiln_fuzz_args TARGET DICT_DIR   prints the flags (no corpus, no time limit)
kiln_fuzz_args() {
  local d=$2
  case "$1" in
    # Large inputs too: deep and long expressions must fail cleanly, not overflow the stack.
    parser) echo "-timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict=$d/python.dict" ;;
    # Each input has a 1 s time limit inside the target; -timeout catches what ignores it. Python
    # objects in reference cycles are never freed (no cycle collector yet): leaks are not checked.
    interpreter) echo "-timeout=20 -rss_limit_mb=3072 -max_len=8192 -detect_leaks=0 -dict=$d/python.dict" ;;
    kernel_ir) echo "-timeout=10 -rss_limit_mb=2048 -max_len=8192 -dict=$d/kernel_ir.dict" ;;
    graph_text) echo "-timeout=10 -rss_limit_mb=2048 -max_len=8192 -dict=$d/graph_text.dict" ;;
    graph_json) echo "-timeout=10 -rss_limit_mb=2048 -max_len=4096 -dict=$d/json.dict" ;;
    store) echo "-timeout=20 -rss_limit_mb=2048 -max_len=262144" ;;
    tensor) echo "-timeout=20 -rss_limit_mb=3072 -max_len=2048" ;;
    trace_import) echo "-timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict=$d/trace.dict" ;;
    *) echo "-timeout=10 -rss_limit_mb=2048 -max_len=8192" ;;
  esac
}
