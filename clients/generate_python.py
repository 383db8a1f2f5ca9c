"""Generate the typed Python client (clients/python, package `membrane_client`) from the
service's OpenAPI document with the pinned generator (openapi-python-client 0.29.1, in the
`dev` extra).

    python clients/generate_python.py            # rewrite clients/python
    python clients/generate_python.py --out DIR  # write elsewhere (the drift test)

The document comes from the app itself (no server, no database but a throwaway SQLite
file), written beside the package as openapi.json. The generator's post hooks sort
imports and format only: its default hook (`ruff check --fix-only`) applies every safe
fix of the installed ruff's default rules, and ruff 0.17's PYI036 fix turns the template's
`__exit__(self, *args: Any)` into `*args: object`, which mypy then rejects."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "clients" / "python"
PACKAGE = "membrane_client"
CONFIG = f"""\
package_name_override: {PACKAGE}
project_name_override: membrane-client
post_hooks:
  - ruff check . --fix-only --select I
  - ruff format .
"""


def openapi_document(workdir: Path) -> str:
    """The service's OpenAPI document as the app serves it at /openapi.json, with the
    default settings (MEMBRANE_* variables of this environment left out)."""
    for name in [n for n in os.environ if n.startswith("MEMBRANE_")]:
        del os.environ[name]
    sys.path.insert(0, str(ROOT))
    from app.config import Settings
    from app.main import create_app

    settings = Settings(
        _env_file=None,
        database_url=f"sqlite:///{workdir / 'schema.db'}",
        embedding={"provider": "none", "worker_enabled": False},
        scheduler={"enabled": False},
    )
    return json.dumps(create_app(settings).openapi(), indent=2, sort_keys=False) + "\n"


def generate(out: Path) -> None:
    """Write the client project (pyproject.toml, README.md, membrane_client/,
    openapi.json) into `out`, replacing what was there."""
    with tempfile.TemporaryDirectory(prefix="membrane-client-") as tmp:
        work = Path(tmp)
        document = openapi_document(work)
        (work / "openapi.json").write_text(document)
        (work / "config.yml").write_text(CONFIG)
        bin_dir = Path(sys.executable).parent
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
        command = [sys.executable, "-m", "openapi_python_client", "generate"]
        options = ["--path", "openapi.json", "--config", "config.yml", "--meta", "pdm"]
        done = subprocess.run(
            [*command, *options, "--output-path", "client"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise SystemExit(f"generation failed:\n{done.stdout}\n{done.stderr}")
        (work / "client" / "openapi.json").write_text(document)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(work / "client", out, ignore=shutil.ignore_patterns(".ruff_cache"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=TARGET)
    generate(parser.parse_args().out)


if __name__ == "__main__":
    main()
