"""The Zero to JupyterHub values and the DockerSpawner configuration, loaded by the spawners themselves.

What was not run: no Kubernetes cluster or Docker engine is reachable here, so no pod or container
started; the chart's own schema (values.schema.json) is not on the registries this project uses.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from traitlets.config import Config

from instructor.hub import elsewhere
from tests.hub.test_config import settings

IMAGE = "registry.example.org/seqmodels-course:2026.1"


def test_dockerspawner_loads_the_generated_configuration(tmp_path):
    """Does JupyterHub's loader read the file, and DockerSpawner take its limits, image and volumes?"""
    pytest.importorskip("dockerspawner")
    from dockerspawner import DockerSpawner
    from traitlets.config.loader import PyFileConfigLoader

    path = tmp_path / "jupyterhub_config.docker.py"
    path.write_text(elsewhere.docker_config(settings(tmp_path), IMAGE))
    config = PyFileConfigLoader(path.name, path=str(tmp_path)).load_config()  # as JupyterHub reads it
    assert config.JupyterHub.authenticator_class == "native"  # jupyterhub-nativeauthenticator, in the image
    assert config.NativeAuthenticator.open_signup is False
    assert config.Authenticator.allowed_users == {"amy", "bob", "teach", "ta"}
    assert {r["name"] for r in config.JupyterHub.load_roles} == {"formgrade-seqmodels", "idle-culler"}
    spawner = DockerSpawner(config=config, user=SimpleNamespace(name="amy", id=3, url="/user/amy/"))
    assert spawner.image == IMAGE
    assert spawner.mem_limit == 1536 * 2**20  # "1536M", parsed by the spawner
    assert spawner.cpu_limit == 0.5
    assert spawner.volumes[elsewhere.EXCHANGE_VOLUME] == elsewhere.EXCHANGE_MOUNT
    # users' containers join the hub's Docker network and reach the hub by its container's name (issue 43.7)
    assert spawner.network_name == elsewhere.DOCKER_NETWORK
    assert config.JupyterHub.hub_connect_ip == elsewhere.HUB_CONTAINER


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

    values = elsewhere.z2jh_values(settings(tmp_path), IMAGE)
    assert values["hub"]["config"]["Authenticator"]["admin_users"] == ["teach"]
    assert values["hub"]["config"]["NativeAuthenticator"] == {"open_signup": False}
    assert values["cull"] == {"enabled": True, "timeout": 3600}
    c = Config()
    for name, value in elsewhere.kubespawner_config(values).items():
        setattr(c.KubeSpawner, name, value)

    async def pod_of_a_user():  # KubeSpawner is made inside the hub's event loop
        spawner = KubeSpawner(config=c, _mock=True)
        assert (spawner.mem_limit, spawner.cpu_limit) == (1536 * 2**20, 0.5)
        return await spawner.get_pod_manifest()

    pod = asyncio.run(pod_of_a_user())
    container = pod.spec.containers[0]
    assert container.image == IMAGE
    assert int(container.resources.limits["memory"]) == 1536 * 2**20
    assert any(m.mount_path == elsewhere.EXCHANGE_MOUNT for m in container.volume_mounts)
    # the values' volumes stay dicts in the pod: turn them into kubernetes' models as KubeSpawner does elsewhere
    from kubernetes_asyncio.client.models import V1Volume
    from kubespawner.utils import get_k8s_model

    exchange = next(v for v in pod.spec.volumes if (v["name"] if isinstance(v, dict) else v.name) == "exchange")
    volume = get_k8s_model(V1Volume, exchange)  # an unknown key fails here
    assert volume.persistent_volume_claim == {"claimName": elsewhere.EXCHANGE_VOLUME}


def test_course_hub_writes_both_files_and_helm_reads_the_values_as_yaml(tmp_path):
    yaml = pytest.importorskip("yaml")
    s = settings(tmp_path)
    values, docker, _ = elsewhere.write(s, IMAGE)
    assert yaml.safe_load(values.read_text()) == elsewhere.z2jh_values(s, IMAGE)
    assert f"c.DockerSpawner.image = {IMAGE!r}" in docker.read_text()


def test_the_image_both_files_name_has_a_dockerfile(tmp_path):
    """The values and the Docker file name an image: its Dockerfile is written beside them (issue 43.7)."""
    s = settings(tmp_path)
    values, docker, build = elsewhere.write(s, IMAGE)
    text = build.read_text()
    assert build.name == "Dockerfile" and build.parent == values.parent
    assert f"-t {IMAGE} ." in text  # the command in its head builds the image the values name
    steps = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert steps[0].startswith("FROM ")
    assert "COPY dist/ /tmp/dist/" in steps and not any(line.startswith("COPY . ") for line in steps)  # no solutions/
    assert any("seqmodels_course-*.whl)[hub]" in line for line in steps)  # the project's wheel
    assert f"c.Exchange.root = '{elsewhere.EXCHANGE_MOUNT}'" in text
    assert "nativeauthenticator" not in text.lower()  # it runs in the hub, not in the users' image
