FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    MEMBRANE_HOST=0.0.0.0
WORKDIR /srv
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --no-cache-dir '.[local]'
COPY alembic.ini ./
COPY migrations ./migrations
EXPOSE 8080
# Migrate, then serve. Behind a gateway, set MEMBRANE_API_KEYS (open mode binds to loopback).
CMD ["sh", "-c", "python -m app.migrate && python -m app.serve"]
