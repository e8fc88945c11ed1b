#!/usr/bin/env bash
# The one test command (`npm test`): installs what the tests need when it is missing, type-checks
# the whole monorepo, then runs every mocha suite (shared/*, services/*, whole-stack test/) in one
# run that ends with `tests: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v nats-server >/dev/null 2>&1 || need_apt+=(nats-server)
if [ -z "${CHROME_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  need_apt+=(chromium)
fi
# The compose file is checked by a real compose client (Debian's docker-compose; no engine needed).
if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null 2>&1; then
  need_apt+=(docker-compose)
fi
# Recordings are decoded by ffmpeg in the tests; the simulators speak with espeak-ng.
command -v ffmpeg >/dev/null 2>&1 || need_apt+=(ffmpeg)
command -v espeak-ng >/dev/null 2>&1 || need_apt+=(espeak-ng)
# The test speech engine (test/support/speech-engine) recognises with pocketsphinx's US English model.
command -v pocketsphinx_continuous >/dev/null 2>&1 || need_apt+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || need_apt+=(pocketsphinx-en-us)
# The Kubernetes manifests are rendered by kubectl's built-in kustomize (test/deploy/kubernetes.spec.ts
# needs kustomize 5: kubectl 1.27 or later).
command -v kubectl >/dev/null 2>&1 || need_apt+=(kubernetes-client)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need_apt[*]} from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "missing: ${need_apt[*]}. Install them (Debian: apt-get install ${need_apt[*]}) or set CHROME_PATH / NATS_URL." >&2
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "type-checking"
npx tsc -p tsconfig.json

# Stacks the tests start never install a browser themselves (it was installed above, or is missing).
export BOT_INSTALL_BROWSER=false
npx mocha --config .mocharc.cjs --reporter ./test/support/summary-reporter.cjs \
  'shared/*/test/**/*.spec.ts' 'services/*/test/**/*.spec.ts' 'test/**/*.spec.ts' "$@"
