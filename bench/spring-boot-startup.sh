#!/usr/bin/env bash
# What the Spring Boot starter adds to an application: jars and start-up time.
# The sample (samples/spring-boot: JPA, Actuator, H2) started with the starter, against the same
# application without Turnstile (PlainOrdersApplication: an entity, a repository, Actuator) on the
# class path Boot gives it without the starter; ROUNDS rounds, the two alternating.
# Usage: bench/spring-boot-startup.sh [ROUNDS [MODULE]]   (after `mvn install -DskipTests`; MODULE:
# samples/spring-boot, Boot 4.0.7, or samples/spring-boot-versions/boot-4.0.0 or boot-4.1.2)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sample=${2:-samples/spring-boot}
mvn -B -q -o test-compile -pl "$sample"
mvn -B -q -o dependency:build-classpath -pl "$sample" -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/with.txt"
# The same pom without the starter.
mkdir -p "$work/plain"
sed '/<artifactId>turnstile-spring-boot-starter<\/artifactId>/{N;s/.*//}' "$sample/pom.xml" \
  | awk 'BEGIN{RS="<dependency>";ORS=""} NR==1{print;next} !/^[[:space:]]*<groupId>dev.turnstile<\/groupId>[[:space:]]*<\/dependency>/{print "<dependency>" $0}' \
  > "$work/plain/pom.xml"
mvn -B -q -o dependency:build-classpath -f "$work/plain/pom.xml" -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/without.txt"

tr ':' '\n' < "$work/with.txt" | sort > "$work/with.list"
tr ':' '\n' < "$work/without.txt" | sort > "$work/without.list"
comm -23 "$work/with.list" "$work/without.list" > "$work/added.list"
echo "jars: $(wc -l < "$work/without.list") without the starter, $(wc -l < "$work/with.list") with it;" \
  "added $(wc -l < "$work/added.list"), $(cat "$work/added.list" | xargs du -cb | tail -1 | awk '{printf "%.1f MB", $1/1e6}'):"
xargs -n1 basename < "$work/added.list" | sed 's/^/  /'

classes="$sample/target/classes:$sample/target/test-classes"
for i in $(seq 1 "$rounds"); do
  java -cp "$sample/target/test-classes:$sample/target/classes:$(cat "$work/without.txt")" \
    dev.turnstile.samples.startup.StartupCost dev.turnstile.samples.startup.plain.PlainOrdersApplication | grep '^STARTUP'
  java -cp "$classes:$(cat "$work/with.txt")" \
    dev.turnstile.samples.startup.StartupCost dev.turnstile.samples.boot.OrdersApplication | grep '^STARTUP'
done
