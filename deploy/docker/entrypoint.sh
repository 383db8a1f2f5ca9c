#!/bin/sh
# The image's `membrane` command (run under tini, so signals reach the server and zombies
# are reaped): the package's CLI, app/cli.py, run from the copied source. `exec` makes the
# process tini's direct child.
#   serve (default; `api` too)          the API
#   worker                              embedding, consolidation, scheduled jobs
#   migrate [upgrade|downgrade] [REV]   migrations under the lock
#   mcp | export | import | keys        see `membrane --help`
# Anything else runs as given (e.g. `python -m app.embedding.backfill --repin`).
set -eu
command="${1:-serve}"
[ "$#" -gt 0 ] && shift
case "$command" in
    api) exec python -m app.cli serve "$@" ;;
    serve | worker | migrate | mcp | export | import | keys | -h | --help)
        exec python -m app.cli "$command" "$@" ;;
    *) exec "$command" "$@" ;;
esac
