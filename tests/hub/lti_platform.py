"""An LTI 1.3 platform on localhost, built on ``lti1p3platform`` (PyPI), to launch into ``course hub``.

lti1p3platform does what an LMS does in a launch: the OIDC login initiation
(a redirect to the tool's login URL with ``iss``, ``login_hint``,
``lti_message_hint``, ``client_id``, ``lti_deployment_id``), the check of the
tool's authentication request (client id, nonce, state, redirect URI), the
id_token with the LTI claims signed with the platform's RSA key, the
auto-submitting form that POSTs it to the tool, and the platform's JWKS. It
leaves the web framework to its user (it ships Django and FastAPI glue); this
module is that glue for Python's own HTTP server, nothing more: every claim
and signature is the library's.

Endpoints: ``/launch?user=<key>&fault=<kind>`` (what clicking the assignment
in the LMS does), ``/authorize`` (the platform's authorization endpoint),
``/jwks``. ``fault`` makes the platform itself misbehave: ``expired`` (an
id_token whose ``exp`` has passed), ``audience`` (signed for another tool's
client id), ``deployment`` (from a deployment the hub was not told of), ``issuer`` (naming
itself as another platform).
"""

from __future__ import annotations

import html
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import MessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest

CLIENT_ID = "seqmodels-hub"
DEPLOYMENT_ID = "1:course-seqmodels"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
#: a teaching assistant: Instructor with its TeachingAssistant sub-role (the principal role sent beside it)
TEACHING_ASSISTANT = [INSTRUCTOR, "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]


def _pem_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@dataclass
class Person:
    sub: str  # the LMS's own id of the person
    email: str
    roles: list[str]
    name: str = ""


class _Config(LTI1P3PlatformConfAbstract):
    """One registration of the tool: the library's platform store."""

    def init_platform_config(self, **kwargs: Any) -> None:
        self.values = kwargs

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        v = self.values
        return (
            Registration()
            .set_iss(v["iss"])
            .set_client_id(v["client_id"])
            .set_deployment_id(v["deployment_id"])
            .set_oidc_login_url(v["oidc_login_url"])
            .set_launch_url(v["launch_url"])
            .set_platform_private_key(v["private_key"])
            .set_platform_public_key(v["public_key"])
        )


class _Request(Request):
    def build_metadata(self, request: Any) -> TRequest:
        return {
            "method": "GET",
            "form_data": {},
            "get_data": request,
            "headers": {},
            "content_type": None,
            "path": "",
            "json": None,
        }


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class _Launch(MessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        # the library's own template (framework/templates/launch.html) needs pkg_resources: the same form here
        fields = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(launch_data[k])}" />' for k in ("id_token", "state")
        )
        return (
            "<!DOCTYPE html><html><head><title>LTI Tool Launch</title></head><body>"
            f'<form method="POST" action="{html.escape(launch_data["launch_url"])}" id="form">{fields}</form>'
            '<script>document.getElementById("form").submit();</script></body></html>'
        )


class OnLocalhost:
    """What both test platforms share: their key pair, their server on 127.0.0.1 and the launch settings of
    lti13.json (the dataclasses below hold ``private_key``, ``public_key`` and ``server``)."""

    private_key: str
    public_key: str
    server: ThreadingHTTPServer | None

    def __post_init__(self) -> None:
        self.private_key, self.public_key = _pem_pair()

    @property
    def base(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def launch_settings(self) -> dict[str, Any]:
        """What an instructor copies from the LMS into ``<hub dir>/lti13.json`` for launches."""
        return {
            "issuer": self.base,
            "client_id": [CLIENT_ID],
            "deployment_id": [DEPLOYMENT_ID],
            "authorize_url": f"{self.base}/authorize",
            "jwks_endpoint": f"{self.base}/jwks",
        }

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class Platform(OnLocalhost):
    """The platform, serving on 127.0.0.1; ``tool`` (the hub's base URL) is set once the hub runs."""

    people: dict[str, Person]
    tool: str = ""
    private_key: str = ""
    public_key: str = ""
    server: ThreadingHTTPServer | None = None
    launches: list[dict[str, Any]] = field(default_factory=list)

    def hub_settings(self) -> dict[str, Any]:
        """What an instructor copies from the LMS into ``<hub dir>/lti13.json``."""
        return self.launch_settings()

    def config(self, fault: str = "") -> _Config:
        return _Config(
            iss=f"{self.base}/another-platform" if fault == "issuer" else self.base,
            client_id="another-tool" if fault == "audience" else CLIENT_ID,
            deployment_id="9:another-deployment" if fault == "deployment" else DEPLOYMENT_ID,
            oidc_login_url=f"{self.tool}/hub/lti13/oauth_login",
            launch_url=f"{self.tool}/hub/",
            private_key=self.private_key,
            public_key=self.public_key,
        )

    def login(self, user: str, fault: str) -> str:
        """The OIDC login initiation: where the platform sends the browser."""
        config = self.config(fault)
        config.get_registration()
        login = _Login(None, config)
        login.set_lti_message_hint(hint=json.dumps({"user": user, "fault": fault}))
        return login.initiate_login(self.people[user].sub)

    def authorize(self, query: dict[str, str]) -> str:
        """The tool asked to authenticate the person: the auto-submitting form with the signed id_token."""
        hint = json.loads(query["lti_message_hint"])
        person, fault = self.people[hint["user"]], hint["fault"]
        assert query["login_hint"] == person.sub
        launch = _Launch(_Request(query), self.config(fault))
        launch.set_user_data(person.sub, person.roles, full_name=person.name, email_address=person.email)
        launch.set_resource_link_claim("01_rnn", title="01 RNN")
        launch.set_launch_context_claim("seqmodels-2026", context_label="SEQ", context_title="Sequence models")
        if fault == "expired":
            launch.set_id_token_expiration(-120)  # exp two minutes before iat: expired on arrival
        self.launches.append(dict(query))
        return launch.lti_launch()

    def jwks(self) -> dict[str, Any]:
        config = self.config()
        config.get_registration()
        return dict(config.get_jwks())

    def start(self) -> Platform:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                try:
                    if url.path == "/launch":
                        self.send_response(302)
                        self.send_header("Location", platform.login(query["user"], query.get("fault", "")))
                        self.end_headers()
                        return
                    if url.path == "/authorize":
                        body, kind = platform.authorize(query).encode(), "text/html"
                    elif url.path == "/jwks":
                        body, kind = json.dumps(platform.jwks()).encode(), "application/json"
                    else:
                        self.send_error(404)
                        return
                except Exception as err:  # the test reads why
                    self.send_error(500, explain=repr(err))
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.serve(Handler)
        return self
