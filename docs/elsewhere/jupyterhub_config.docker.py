"""JupyterHub with DockerSpawner: the course's class past one machine, one container per user.

An example, not written by `course hub`: the class of students amy and bob, the instructor teach and the grader
ta, course seqmodels, 1536 MB and half a CPU per user, idle servers stopped after an hour. Put your roster and
staff where these names are. Checked by tests/hub/test_elsewhere.py: DockerSpawner loads it, and its groups,
roles and limits are what `course hub` writes for the same class.
"""

c = get_config()  # noqa: F821
# containers have no Unix accounts: NativeAuthenticator (installed where the hub runs, not in the users' image)
c.JupyterHub.authenticator_class = "native"
c.NativeAuthenticator.open_signup = False  # the instructor approves each sign-up at /hub/authorize
c.Authenticator.allowed_users = {"amy", "bob", "ta", "teach"}
c.Authenticator.admin_users = {"teach"}
c.JupyterHub.load_groups = {
    "nbgrader-seqmodels": {"users": ["amy", "bob"]},
    "formgrade-seqmodels": {"users": ["ta", "teach"]},
}
c.JupyterHub.load_roles = [
    {
        "name": "formgrade-seqmodels",
        "groups": ["formgrade-seqmodels"],
        "scopes": ["self", "list:users!group=nbgrader-seqmodels", "read:users!group=nbgrader-seqmodels"],
    },
    {
        "name": "idle-culler",
        "services": ["idle-culler"],
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    },
]
c.JupyterHub.services = [
    {"name": "idle-culler", "command": ["python3", "-m", "jupyterhub_idle_culler", "--timeout=3600"]}
]

c.JupyterHub.spawner_class = "docker"
# the hub runs in a container named 'course-hub' on the Docker network 'course-hub'
# (docker network create course-hub); users' containers join it and reach the hub by that name
c.DockerSpawner.network_name = "course-hub"
c.JupyterHub.hub_ip = "0.0.0.0"
c.JupyterHub.hub_connect_ip = "course-hub"
c.DockerSpawner.image = "registry.example.org/seqmodels-course:2026.1"  # docs/elsewhere/Dockerfile
c.DockerSpawner.remove = True
c.DockerSpawner.default_url = "/lab"
c.DockerSpawner.mem_limit = "1536M"
c.DockerSpawner.cpu_limit = 0.5
c.DockerSpawner.notebook_dir = "/home/jovyan/work"
# a named volume per home, and nbgrader's exchange: one volume every user's container mounts
c.DockerSpawner.volumes = {"course-home-{username}": "/home/jovyan/work", "nbgrader-exchange": "/srv/nbgrader/exchange"}
# each user's server under a uid of its own (10000 + the hub's id of that user): the exchange's write-only
# inbound keeps students out of each other's submissions; the image's start script drops to NB_UID
c.DockerSpawner.extra_create_kwargs = {"user": "0"}
c.DockerSpawner.environment = {"NB_UID": lambda spawner: str(10000 + spawner.user.id)}
