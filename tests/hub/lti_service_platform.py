"""An LTI 1.3 platform's services on localhost, built on ``lti1p3platform`` 0.1.8 (PyPI): token, NRPS, AGS.

Which side is whose:

- **lti1p3platform's** (nobody here wrote it): the token endpoint
  (``LTI1P3PlatformConfAbstract.get_access_token``: the required form fields,
  the client-credentials grant, the tool's signed assertion checked against
  the tool's key set by ``kid`` and ``alg``, the granted scopes, the signed
  access token); the services' bearer check on every call (the token's
  signature, issuer, expiry and scopes, in ``service_connector.authenticate``);
  the handlers of NRPS (``NamesRoleProvisioningService.handle_get_members``:
  the membership container, each member's ``user_id`` and ``roles``) and of
  AGS (``AssignmentsGradesService``: line items listed, made, read, updated;
  scores posted; results read; 404 for an unknown line item; the status
  codes of a score: 200, 201, 409 for an older timestamp).
- **this module's** (the part an LMS keeps in its own database, which the
  library leaves abstract): the storage of members, line items, scores and
  results, in memory, shaped as the IMS specs give them
  (https://www.imsglobal.org/spec/lti-nrps/v2p0, https://www.imsglobal.org/spec/lti-ags/v2p0);
  the HTTP glue for Python's own server; and two checks the library does not
  make and Canvas and Moodle do: the tool's assertion must name the tool
  (``iss`` = ``sub`` = its client id) and the token endpoint (``aud``). Where
  the library's list replies are its own page object (``{"content": [...],
  "has_next": ...}``), the glue sends the spec's JSON array, as Canvas and
  Moodle do.

The registration holds the tool's key set as the LMS would after fetching
``/hub/lti13/jwks`` (:func:`instructor.hub.lti.public_jwks` of the tool's key).
Every score POSTed is kept in :attr:`ServicePlatform.received`.
"""

from __future__ import annotations

import itertools
import json
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from lti1p3platform.exceptions import LineItemNotFoundException, LtiException
from lti1p3platform.membership import Context
from lti1p3platform.request import Request, TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService, TPage

from tests.hub.lti_platform import CLIENT_ID, DEPLOYMENT_ID, OnLocalhost, _Config

CONTEXT = Context(id="seqmodels-2026", label="SEQ", title="Sequence models")


class _HttpRequest(Request):
    """The library's request, from what the server read."""

    def build_metadata(self, request: Any) -> TRequest:
        return request


@dataclass
class ServicePlatform(OnLocalhost):
    """Token, NRPS and AGS on 127.0.0.1; ``members`` are NRPS member objects; ``tool_jwks`` the tool's key set."""

    members: list[dict[str, Any]]
    tool_jwks: dict[str, Any]
    private_key: str = ""
    public_key: str = ""
    server: ThreadingHTTPServer | None = None
    line_items: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (line item id, user id) -> the last score taken
    scores: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: every score POSTed: (line item id, the score, the status code answered)
    received: list[tuple[str, Any, int]] = field(default_factory=list)
    #: every token request answered: its status code
    tokens: list[int] = field(default_factory=list)
    #: a status every score gets instead of being taken (403 notapplied: a concluded course), or None
    refuse: UpdateScoreStatus | None = None
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def hub_settings(self) -> dict[str, Any]:
        """lti13.json, with the services' URLs."""
        return {
            **self.launch_settings(),
            "token_url": f"{self.base}/token",
            "memberships_url": f"{self.base}/memberships",
            "lineitems_url": f"{self.base}/lineitems",
        }

    def config(self) -> _Config:
        config = _Config(
            iss=self.base,
            client_id=CLIENT_ID,
            deployment_id=DEPLOYMENT_ID,
            oidc_login_url="http://tool.invalid/login",
            launch_url="http://tool.invalid/",
            private_key=self.private_key,
            public_key=self.public_key,
        )
        config.get_registration().set_tool_key_set(self.tool_jwks)
        return config

    # -- the token endpoint: the library's get_access_token, and the assertion's names (Canvas's and Moodle's check)
    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        try:
            granted = self.config().get_access_token(form)
            claims = jwt.decode(form["client_assertion"], options={"verify_signature": False})  # verified above
            if claims.get("iss") != CLIENT_ID or claims.get("sub") != CLIENT_ID:
                raise ValueError(f"the assertion names {claims.get('iss')!r}, not the tool {CLIENT_ID!r}")
            if claims.get("aud") != f"{self.base}/token":
                raise ValueError(f"the assertion's audience {claims.get('aud')!r} is not this token endpoint")
        except Exception as err:  # the library raises LtiException, jwt's errors, its own MissingRequiredClaim
            code, body = 400, {"error": "invalid_client", "error_description": str(err) or type(err).__name__}
        else:
            code, body = 200, dict(granted)
        self.tokens.append(code)
        return code, body

    # -- the services, the library's handlers over this storage
    def nrps(self, request: Request) -> NamesRoleProvisioningService:
        platform = self

        class Service(NamesRoleProvisioningService):
            def get_member_data_page(self, **kwargs: Any) -> TPage:
                return {"content": [dict(m) for m in platform.members], "has_next": False}

            def get_context_by_id(self) -> Context:
                return CONTEXT

        return Service(request, self.config(), f"{self.base}/memberships")

    def ags(self, request: Request) -> AssignmentsGradesService:
        platform = self

        class Service(AssignmentsGradesService):
            def find_lineitems(self, **kwargs: Any) -> TPage:
                items = [
                    i
                    for i in platform.line_items.values()
                    if all(
                        not kwargs.get(q) or i.get(k) == kwargs[q]
                        for q, k in (("resource_id", "resourceId"), ("tag", "tag"))
                    )
                ]
                return {"content": items, "has_next": False}

            def find_lineitem(self, line_item_id: str) -> Any:
                try:
                    return platform.line_items[line_item_id]
                except KeyError:
                    raise LineItemNotFoundException(line_item_id) from None

            def create_lineitem(self, creation_data: Any) -> Any:
                url = f"{platform.base}/lineitems/{next(platform._ids)}"
                platform.line_items[url] = {**creation_data, "id": url}
                return platform.line_items[url]

            def update_lineitem(self, update_data: Any) -> Any:
                self.find_lineitem(update_data["id"])
                platform.line_items[update_data["id"]] = dict(update_data)
                return update_data

            def delete_lineitem(self, line_item_id: str) -> None:
                self.find_lineitem(line_item_id)
                del platform.line_items[line_item_id]

            def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
                self.find_lineitem(line_item_id)
                if platform.refuse is not None:
                    return platform.refuse
                key = (line_item_id, str(score["userId"]))
                held = platform.scores.get(key)
                if held is not None and held["timestamp"] >= score["timestamp"]:
                    return UpdateScoreStatus.OLD_TIMESTAMP  # AGS: never a result older than the last
                platform.scores[key] = dict(score)
                return UpdateScoreStatus.SUCCESS if held else UpdateScoreStatus.CREATED

            def get_results(self, line_item_id: str, **kwargs: Any) -> TPage:
                self.find_lineitem(line_item_id)
                return {
                    "content": [
                        {
                            "id": f"{line_item_id}/results/{user}",
                            "scoreOf": line_item_id,
                            "userId": user,
                            "resultScore": s.get("scoreGiven"),
                            "resultMaximum": s.get("scoreMaximum"),
                        }
                        for (item, user), s in platform.scores.items()
                        if item == line_item_id
                    ],
                    "has_next": False,
                }

        return Service(request, self.config(), f"{self.base}/lineitems")

    def handle(self, method: str, path: str, query: dict[str, str], headers, body: bytes) -> tuple[int, str, Any]:
        """(status, media type, JSON body) of one request."""
        if path == "/token" and method == "POST":
            code, answer = self.token(dict(urllib.parse.parse_qsl(body.decode())))
            return code, "application/json", answer
        payload = json.loads(body) if body and method in ("POST", "PUT") else None
        request = _HttpRequest(
            {
                "method": method,
                "form_data": {},
                "get_data": dict(query),
                "headers": {"Authorization": headers.get("Authorization", "")},
                "content_type": headers.get("Content-Type"),
                "path": path,
                "json": payload,
            }
        )
        url = f"{self.base}{path}"
        try:
            if path == "/memberships":
                nrps = self.nrps(request)
                reply = nrps.handle_resp(nrps.handle_get_members)
            elif path == "/lineitems":
                ags = self.ags(request)
                reply = ags.handle_resp(ags.handle_create_lineitem if method == "POST" else ags.handle_get_lineitems)
            elif path.startswith("/lineitems/") and path.endswith("/scores"):
                ags = self.ags(request)
                item = url.removesuffix("/scores")
                reply = ags.handle_resp(ags.handle_update_score, line_item_id=item)
                if method == "POST":
                    self.received.append((item, payload, reply.code))
            elif path.startswith("/lineitems/") and path.endswith("/results"):
                ags = self.ags(request)
                reply = ags.handle_resp(ags.handle_get_results, line_item_id=url.removesuffix("/results"))
            elif path.startswith("/lineitems/"):
                ags = self.ags(request)
                handler = {"GET": ags.handle_get_lineitem, "PUT": ags.handle_update_lineitem}.get(method)
                if handler is None:
                    return 405, "application/json", {"error": f"{method} not allowed"}
                reply = ags.handle_resp(handler, line_item_id=url)
            else:
                return 404, "application/json", {"error": f"no such endpoint {path}"}
        except (jwt.PyJWTError, LtiException) as err:  # the library's bearer check raises these past handle_resp
            return 401, "application/json", {"error": f"invalid access token: {err}"}
        result = reply.result
        if isinstance(result, dict) and "content" in result and "has_next" in result:
            result = result["content"]  # the spec's array (the library's page object, unwrapped)
        if reply.code >= 400:
            return reply.code, "application/json", {"error": reply.message}
        return reply.code, reply.media_type, result

    def start(self) -> ServicePlatform:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    code, kind, answer = platform.handle(
                        self.command, url.path, dict(urllib.parse.parse_qsl(url.query)), self.headers, body
                    )
                except Exception as err:  # a bug here: the test reads why
                    code, kind, answer = 500, "application/json", {"error": repr(err)}
                data = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self.serve(Handler)
        return self
