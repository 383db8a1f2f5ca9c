"""The memory browser at /ui: a static page that talks only to the REST API."""
