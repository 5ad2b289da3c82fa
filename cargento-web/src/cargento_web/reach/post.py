"""One bounded HTTP POST of a nudge, reported with the same outcomes as a desktop raise."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

from cargento_web.runtime.notifiers import Sent

__all__ = ["post_once"]


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is not followed: the body would go somewhere nobody configured."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


def post_once(url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> Sent:
    """``handed-over`` on a 2xx answer; ``service-error`` on any other status;
    ``timed-out``; ``could-not-start`` when no connection was made."""
    request = urllib.request.Request(url, data=body, headers={**headers, "User-Agent": "cargento"}, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout_s) as answer:
            status = answer.status
    except urllib.error.HTTPError as exc:
        return Sent(outcome="service-error", detail=f"the webhook answered {exc.code}")
    except TimeoutError:
        return Sent(outcome="timed-out", detail=f"the webhook did not answer within {timeout_s:g} s")
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError | socket.timeout):
            return Sent(outcome="timed-out", detail=f"the webhook did not answer within {timeout_s:g} s")
        return Sent(outcome="could-not-start", detail=f"the webhook could not be reached: {exc.reason}")
    except OSError as exc:
        return Sent(outcome="could-not-start", detail=f"the webhook could not be reached: {exc}")
    if 200 <= status < 300:
        return Sent(outcome="handed-over", detail=f"the webhook answered {status}")
    return Sent(outcome="service-error", detail=f"the webhook answered {status}")
