"""The documented examples past one machine (docs/elsewhere/): the Zero to JupyterHub values, the DockerSpawner
configuration, the users' Dockerfile and the students' nbgrader settings it copies, loaded by the spawners
themselves and held against what `course hub` writes for the same class.

What was not run: no Kubernetes cluster or Docker engine is reachable here, so no pod or container
started and no image was built; the chart's own schema (values.schema.json) is not on the registries this
project uses.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from instructor.hub import config as hub_files
from instructor.hub.config import student_nbgrader_config
from instructor.paths import REPO_ROOT
from tests.hub.test_config import settings

EXAMPLES = REPO_ROOT / "docs" / "elsewhere"
VALUES, DOCKER, BUILD = EXAMPLES / "z2jh-values.yaml", EXAMPLES / "jupyterhub_config.docker.py", EXAMPLES / "Dockerfile"
STUDENTS = EXAMPLES / "nbgrader_config.py"
#: the users' image both files name
IMAGE = "registry.example.org/seqmodels-course:2026.1"
#: where every user's server sees nbgrader's exchange, and the claim (Kubernetes) or volume (Docker) holding it
EXCHANGE_MOUNT, EXCHANGE_VOLUME = "/srv/nbgrader/exchange", "nbgrader-exchange"
#: the Docker network the hub's container and every user's container join, and the hub's container's name on it
DOCKER_NETWORK = HUB_CONTAINER = "course-hub"


def _load(path: Path, text: str | None = None) -> Config:
    """A configuration file as JupyterHub's loader reads it (``text``: written beside it first)."""
    if text is not None:
        path.write_text(text)
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()


def _values() -> dict:
    return yaml.safe_load(VALUES.read_text())  # as Helm reads it


def kubespawner_config(values: dict) -> dict:
    """What the chart sets on KubeSpawner from ``values["singleuser"]`` (the part a test can load)."""
    user = values["singleuser"]
    return {
        "image": f"{user['image']['name']}:{user['image']['tag']}",
        "default_url": user["defaultUrl"],
        "mem_limit": user["memory"]["limit"],
        "mem_guarantee": user["memory"]["guarantee"],
        "cpu_limit": float(user["cpu"]["limit"]),
        "cpu_guarantee": float(user["cpu"]["guarantee"]),
        "volumes": user["storage"]["extraVolumes"],
        "volume_mounts": user["storage"]["extraVolumeMounts"],
        "fs_gid": 100,
    }


def test_dockerspawner_loads_the_example_configuration():
    """Does JupyterHub's loader read the file, and DockerSpawner take its limits, image and volumes?"""
    pytest.importorskip("dockerspawner")
    from dockerspawner import DockerSpawner

    config = _load(DOCKER)  # as JupyterHub reads it
    assert config.JupyterHub.authenticator_class == "native"  # jupyterhub-nativeauthenticator, where the hub runs
    assert config.NativeAuthenticator.open_signup is False
    assert config.Authenticator.allowed_users == {"amy", "bob", "teach", "ta"}
    assert {r["name"] for r in config.JupyterHub.load_roles} == {"formgrade-seqmodels", "idle-culler"}
    assert config.DockerSpawner.image == IMAGE
    spawner = DockerSpawner(config=config, user=SimpleNamespace(name="amy", id=3, url="/user/amy/"))
    assert spawner.image == IMAGE
    assert spawner.mem_limit == 1536 * 2**20  # "1536M", parsed by the spawner
    assert spawner.cpu_limit == 0.5
    assert spawner.volumes[EXCHANGE_VOLUME] == EXCHANGE_MOUNT
    # users' containers join the hub's Docker network and reach the hub by its container's name (issue 43.7)
    assert spawner.network_name == DOCKER_NETWORK
    assert config.JupyterHub.hub_connect_ip == HUB_CONTAINER
    # each user's server under a uid of its own
    assert config.DockerSpawner.environment["NB_UID"](SimpleNamespace(user=SimpleNamespace(id=3))) == "10003"


def test_the_docker_example_is_course_hubs_class(tmp_path):
    """Are the Docker example's people, groups, roles, limits and culler what `course hub` writes for its class?"""
    s = settings(tmp_path)
    example, hub = _load(DOCKER), _load(hub_files.write(s))
    for name in ("allowed_users", "admin_users"):
        assert example.Authenticator[name] == hub.Authenticator[name], name
    assert example.JupyterHub.load_groups == hub.JupyterHub.load_groups
    assert example.JupyterHub.load_roles == hub.JupyterHub.load_roles
    assert example.DockerSpawner.mem_limit == f"{s.memory_mb}M" and example.DockerSpawner.cpu_limit == s.cpus
    [culler] = example.JupyterHub.services
    assert culler["command"][1:] == hub.JupyterHub.services[0]["command"][1:]  # the idle timeout: s.idle_timeout


#: a cluster that is never contacted: KubeSpawner reads a kube-config when it is made
KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none, namespace: course}}]
current-context: none
"""


def test_kubespawner_builds_a_pod_from_the_values(tmp_path, monkeypatch):
    """Do the values' single-user settings, as the chart hands them to KubeSpawner, make a valid pod?"""
    pytest.importorskip("kubespawner")
    from kubernetes_asyncio.config import kube_config

    (tmp_path / "kubeconfig").write_text(KUBECONFIG)
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(tmp_path / "kubeconfig"))
    from kubespawner import KubeSpawner

    values = _values()
    assert values["hub"]["config"]["Authenticator"]["admin_users"] == ["teach"]
    assert values["hub"]["config"]["NativeAuthenticator"] == {"open_signup": False}
    assert values["cull"] == {"enabled": True, "timeout": 3600}
    c = Config()
    for name, value in kubespawner_config(values).items():
        setattr(c.KubeSpawner, name, value)

    async def pod_of_a_user():  # KubeSpawner is made inside the hub's event loop
        spawner = KubeSpawner(config=c, _mock=True)
        assert (spawner.mem_limit, spawner.cpu_limit) == (1536 * 2**20, 0.5)
        return await spawner.get_pod_manifest()

    pod = asyncio.run(pod_of_a_user())
    container = pod.spec.containers[0]
    assert container.image == IMAGE
    assert int(container.resources.limits["memory"]) == 1536 * 2**20
    assert any(m.mount_path == EXCHANGE_MOUNT for m in container.volume_mounts)
    # the values' volumes stay dicts in the pod: turn them into kubernetes' models as KubeSpawner does elsewhere
    from kubernetes_asyncio.client.models import V1Volume
    from kubespawner.utils import get_k8s_model

    exchange = next(v for v in pod.spec.volumes if (v["name"] if isinstance(v, dict) else v.name) == "exchange")
    volume = get_k8s_model(V1Volume, exchange)  # an unknown key fails here
    assert volume.persistent_volume_claim == {"claimName": EXCHANGE_VOLUME}


def test_helm_reads_the_values_as_yaml_and_they_are_course_hubs_class(tmp_path):
    """Do the values parse as YAML, with `course hub`'s people, groups, roles, limits and culler for its class,
    and does the chart's extra configuration give each user a uid of their own?"""
    s = settings(tmp_path)
    values, hub = _values(), _load(hub_files.write(s))
    config = values["hub"]["config"]
    assert config["JupyterHub"]["authenticator_class"] == "native"
    assert set(config["Authenticator"]["allowed_users"]) == hub.Authenticator.allowed_users
    assert set(config["Authenticator"]["admin_users"]) == hub.Authenticator.admin_users
    assert config["JupyterHub"]["load_groups"] == hub.JupyterHub.load_groups
    formgrade = next(r for r in hub.JupyterHub.load_roles if r["name"] == s.grader_group)
    assert values["hub"]["loadRoles"] == {s.grader_group: {k: v for k, v in formgrade.items() if k != "name"}}
    assert values["singleuser"]["memory"]["limit"] == f"{s.memory_mb}M"
    assert values["singleuser"]["cpu"]["limit"] == s.cpus
    assert values["cull"]["timeout"] == s.idle_timeout
    assert f"{values['singleuser']['image']['name']}:{values['singleuser']['image']['tag']}" == IMAGE
    c = Config()
    exec(values["hub"]["extraConfig"]["courseUids"], {"c": c})  # as the chart runs it in the hub's configuration
    assert c.KubeSpawner.fs_gid == 100 and c.KubeSpawner.uid(SimpleNamespace(user=SimpleNamespace(id=3))) == 10003


def test_the_image_both_files_name_has_a_dockerfile():
    """The values and the Docker file name an image: its Dockerfile stands beside them (issue 43.7)."""
    text = BUILD.read_text()
    assert BUILD.name == "Dockerfile" and BUILD.parent == VALUES.parent == DOCKER.parent
    assert f"-t {IMAGE} ." in text  # the command in its head builds the image the values name
    steps = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert steps[0].startswith("FROM ")
    assert "COPY dist/ /tmp/dist/" in steps and not any(line.startswith("COPY . ") for line in steps)  # no solutions/
    assert any("seqmodels_course-*.whl)[hub]" in line for line in steps)  # the project's wheel
    # the students' settings, copied from the repository (the build's context) to where Jupyter reads them
    copied = f"COPY {STUDENTS.relative_to(REPO_ROOT)} /etc/jupyter/nbgrader_config.py"
    assert copied in steps
    assert f'c.Exchange.root = "{EXCHANGE_MOUNT}"' in STUDENTS.read_text()
    assert "nativeauthenticator" not in text.lower()  # it runs in the hub, not in the users' image


def test_the_students_settings_in_the_image_are_course_hubs(tmp_path):
    """Are the image's nbgrader settings those `course hub` writes for its students' servers, with the exchange
    where every pod or container mounts it?"""
    s = replace(settings(tmp_path), exchange=Path(EXCHANGE_MOUNT))
    assert _load(STUDENTS) == _load(tmp_path / "nbgrader_config.py", student_nbgrader_config(s))


def test_course_hub_image_says_where_the_examples_are(capsys):
    """`course hub --image`, which named the image of the files it wrote, still parses for a term and says in one
    line that the examples are in docs/elsewhere/ now?"""
    from instructor.cli import build_parser

    build_parser().parse_args(["hub", "--image", IMAGE])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--image is deprecated" in err and "docs/elsewhere/" in err, err
    assert (EXAMPLES / "z2jh-values.yaml").is_file()
