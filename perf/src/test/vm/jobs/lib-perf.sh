# Sourced by perf's lab jobs, after rdma-channel's lib-rxe.sh: the classpath of perf as the host
# built it, and the JVM flags of a measuring run. A job fails here when perf was not packaged.
#   CP          perf/target/classes and perf/target/runtime-classpath.txt (written at package)
#   PERF_FLAGS  the lab's JVM flags without its C1-only limit (a measurement wants C2; under TCG its
#               compiles are slow, so such runs warm up long), and an hs_err file kept in the
#               results (a child ponger inherits the option)
cp_file=$MODULE/target/runtime-classpath.txt
[ -s "$cp_file" ] || { note result "FAILED: no $cp_file (build perf with mvn package first)"; exit 1; }
CP="$MODULE/target/classes:$(cat "$cp_file")"
PERF_FLAGS=("-XX:ErrorFile=$RESULTS/hs_err_pid%p.log")
for flag in "${JVM_FLAGS[@]}"; do
  [[ $flag == -XX:TieredStopAtLevel=* ]] || PERF_FLAGS+=("$flag")
done
