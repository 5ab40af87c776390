#!/usr/bin/env bash
# axe-core for the accessibility browser test, from the npm registry through npm itself, pinned to the exact
# version in tests/e2e/axe/package.json. The test injects the installed axe.min.js into each page: nothing is
# fetched while the tests run. No lock file is written (tests/e2e/axe/.npmrc), so none with download addresses
# is ever committed. Skipped when the pinned version is installed already.
set -euo pipefail
cd "$(dirname "$0")/../tests/e2e/axe"
want="$(node -p "require('./package.json').dependencies['axe-core']")"
have="$(node -p "try { require('./node_modules/axe-core/package.json').version } catch (e) { '' }")"
if [ -f node_modules/axe-core/axe.min.js ] && [ "$have" = "$want" ]; then
  exit 0
fi
npm install --no-package-lock --no-audit --no-fund --silent
