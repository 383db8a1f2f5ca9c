#!/bin/sh
# The image's one entrypoint (run under tini, so signals reach the server and zombies are
# reaped). The first argument picks the process; `exec` makes it tini's direct child.
#   api (default)                      python -m app.serve
#   worker                             python -m app.worker
#   migrate [upgrade|downgrade] [REV]  python -m app.migrate …
# Anything else runs as given (e.g. `python -m app.embedding.backfill --repin`).
set -eu
role="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$role" in
    api) exec python -m app.serve "$@" ;;
    worker) exec python -m app.worker "$@" ;;
    migrate) exec python -m app.migrate "$@" ;;
    *) exec "$role" "$@" ;;
esac
