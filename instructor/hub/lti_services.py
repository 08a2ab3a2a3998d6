"""The tool's calls to the LMS's LTI Advantage services: an OAuth2 token, then JSON over HTTP(S).

In: ``<hub dir>/lti13.json`` (:func:`instructor.hub.lti.read_settings`: the
tool's ``client_id`` and the platform's ``token_url``, ``memberships_url``,
``lineitems_url``) and the tool's private key ``<hub dir>/state/lti13-tool-key.pem``,
which ``course hub`` made (root's alone, so these calls are root's too).
Out: :class:`Services`, whose methods return the platform's JSON.

The token is the IMS Security Framework's client-credentials grant
(https://www.imsglobal.org/spec/security/v1p0/#using-json-web-tokens-with-oauth-2-0-client-credentials-grant):
the tool signs a short JWT (``iss`` = ``sub`` = its client id, ``aud`` = the
token endpoint, a fresh ``jti``, the ``kid`` of the key set the LMS was
given at ``/hub/lti13/jwks``) with PyJWT, the library the hub's
authenticator already uses, and trades it for a bearer token of the scopes
asked for. Every refusal by the platform (a 4xx or 5xx, a reply that is not
JSON) is a :class:`ServiceError`: one sentence naming the URL, the status and
the platform's own words; nothing is retried or swallowed.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instructor.errors import CourseError, first_line
from instructor.hub import lti

#: the scopes each service needs (the LMS must grant them to the tool: docs/hub.md)
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
AGS_SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
)
#: the media types of the services' JSON
MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
RESULTS = "application/vnd.ims.lis.v2.resultcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: seconds the tool's signed request for a token is good for
ASSERTION_LIFETIME = 300
#: pages of a list followed at most (a platform's next link that never ends stops here)
MAX_PAGES = 1000


class ServiceError(CourseError):
    """The platform refused a call or answered something that is not the service's JSON."""


@dataclass
class Services:
    """The LMS's services as this tool calls them; one token per run, asked for on the first call."""

    client_id: str
    token_url: str
    key: Path
    memberships_url: str | None = None
    lineitems_url: str | None = None
    scopes: tuple[str, ...] = (NRPS_SCOPE, *AGS_SCOPES)
    timeout: float = 60.0
    _token: str | None = field(default=None, repr=False)

    @classmethod
    def from_hub(cls, hub_dir: Path, scopes: tuple[str, ...]) -> Services:
        """The services of ``<hub_dir>/lti13.json``; a one-sentence error for what is missing."""
        settings = lti.read_settings(hub_dir)
        where = hub_dir / lti.SETTINGS_NAME
        if settings is None:
            raise CourseError(f"{where} does not exist: LTI 1.3 is not set up for this hub (docs/hub.md).")
        if len(settings["client_id"]) != 1:
            raise CourseError(f"{where} names {len(settings['client_id'])} client ids; the services need exactly one.")
        missing = [k for k in ("token_url", *_urls_for(scopes)) if not settings.get(k)]
        if missing:
            raise CourseError(f"{where} has no {', '.join(missing)}: copy it from the LMS (docs/hub.md, LTI services).")
        key = hub_dir / "state" / lti.KEY_NAME
        try:
            os.stat(key)
        except FileNotFoundError:
            raise CourseError(
                f"{key} does not exist: `course hub` makes the tool's key when lti13.json is there."
            ) from None
        except PermissionError:
            raise CourseError(f"cannot read the tool's key {key}: it is root's alone; run this as root.") from None
        return cls(
            settings["client_id"][0],
            settings["token_url"],
            key,
            settings.get("memberships_url"),
            settings.get("lineitems_url"),
            scopes,
        )

    def client_assertion(self) -> str:
        """The tool's signed request for a token (RS256, with the ``kid`` of :func:`lti.public_jwks`)."""
        import jwt

        try:
            pem = self.key.read_bytes()
        except PermissionError:
            raise CourseError(f"cannot read the tool's key {self.key}: it is root's alone; run this as root.") from None
        kid = lti.public_jwks(self.key)["keys"][0]["kid"]
        now = int(time.time())
        claims = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": self.token_url,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME,
            "jti": uuid.uuid4().hex,
        }
        return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": kid})

    def token(self) -> str:
        """A bearer token for :attr:`scopes` (asked for once)."""
        if self._token is None:
            reply = self._call(
                "POST",
                self.token_url,
                "the tool's token request",
                data={
                    "grant_type": "client_credentials",
                    "client_assertion_type": ASSERTION_TYPE,
                    "client_assertion": self.client_assertion(),
                    "scope": " ".join(self.scopes),
                },
                authorize=False,
            )
            body = _json(reply, self.token_url)
            token = body.get("access_token") if isinstance(body, dict) else None
            if not isinstance(token, str) or not token:
                raise ServiceError(f"{self.token_url} answered the token request without an access_token.")
            granted = set(str(body.get("scope", "")).split())
            refused = [s for s in self.scopes if granted and s not in granted]
            if refused:
                raise ServiceError(
                    f"the platform did not grant {', '.join(refused)}: enable the service for the tool (docs/hub.md)."
                )
            self._token = token
        return self._token

    def get_all(self, url: str, accept: str, what: str, key: str | None = None) -> list[Any]:
        """Every item of a paged list: the JSON array (or the object's ``key`` array), following ``Link: rel=next``."""
        items: list[Any] = []
        for _ in range(MAX_PAGES):
            reply = self._call("GET", url, what, accept=accept)
            body = _json(reply, url)
            page = body.get(key) if key and isinstance(body, dict) else body
            if not isinstance(page, list):
                raise ServiceError(f"{url} answered {what} with no list{f' of {key}' if key else ''}.")
            items += page
            url = reply.links.get("next", {}).get("url", "")
            if not url:
                return items
        raise ServiceError(f"{what}: more than {MAX_PAGES} pages, stopped.")

    def post(self, url: str, content_type: str, body: dict[str, Any], what: str, accept: str = "") -> Any:
        """POST ``body`` as JSON; the platform's JSON reply, or None when it sent none."""
        reply = self._call("POST", url, what, json=body, content_type=content_type, accept=accept or content_type)
        return _json(reply, url) if reply.content.strip() else None

    def put(self, url: str, content_type: str, body: dict[str, Any], what: str) -> Any:
        reply = self._call("PUT", url, what, json=body, content_type=content_type, accept=content_type)
        return _json(reply, url) if reply.content.strip() else None

    def _call(
        self,
        method: str,
        url: str,
        what: str,
        *,
        accept: str = "",
        content_type: str = "",
        authorize: bool = True,
        **kwargs: Any,
    ):
        import requests

        headers = {"Accept": accept or "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        if authorize:
            headers["Authorization"] = f"Bearer {self.token()}"
        try:
            reply = requests.request(method, url, headers=headers, timeout=self.timeout, **kwargs)
        except requests.RequestException as err:
            raise ServiceError(f"{what}: {url} could not be reached ({first_line(err)}).") from None
        if reply.status_code >= 400:
            raise ServiceError(f"{what} was refused: {method} {url} answered {reply.status_code}: {_words(reply)}.")
        return reply


def _urls_for(scopes: tuple[str, ...]) -> list[str]:
    return (["memberships_url"] if NRPS_SCOPE in scopes else []) + (
        ["lineitems_url"] if set(AGS_SCOPES) & set(scopes) else []
    )


def _json(reply, url: str) -> Any:
    try:
        return reply.json()
    except ValueError:
        raise ServiceError(f"{url} did not answer JSON ({first_line(reply.text or 'an empty reply')}).") from None


def _words(reply) -> str:
    """The platform's reason for a refusal, in one line: OAuth2's ``error_description``, or its text."""
    try:
        body = reply.json()
    except ValueError:
        return first_line(reply.text or reply.reason or "no reason given")
    if isinstance(body, dict):
        parts = [str(body[k]) for k in ("error", "error_description", "message", "reason") if body.get(k)]
        if parts:
            return first_line(": ".join(parts))
    return first_line(str(body))


def sub_url(url: str, tail: str) -> str:
    """``<line item URL>/scores`` (or ``/results``): the tail goes on the path, before any query (Moodle's has one)."""
    path, sep, query = url.partition("?")
    return f"{path.rstrip('/')}/{tail}{sep}{query}"
