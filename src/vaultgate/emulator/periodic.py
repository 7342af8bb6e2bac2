"""``/periodic/{period}/`` and ``/periodic/{period}/{year}/{month}/{day}/`` (below 5.0.2).

The dated form exists from 3.1.0. GET, PUT, POST, PATCH and DELETE act on the current (or
dated) note exactly as on ``/vault/<its path>``, with ``Content-Location`` naming it and
URL targets after it (3.6.0+). PUT, POST and PATCH create a missing note (empty: the
emulator has no templates); GET and DELETE on a missing one are 404 ``40461``; an unknown
period is 404 ``40460``. From 5.0.2 the routes are gone: the catch-all 404 ``40400``.

The emulator's periodic-notes settings (real vaults configure these per plugin):

=========  ===========================  ============================================
period     note path                    example for 2026-08-01
=========  ===========================  ============================================
daily      ``Daily/YYYY-MM-DD.md``      ``Daily/2026-08-01.md``
weekly     ``Weekly/GGGG-[W]WW.md``     ``Weekly/2026-W31.md`` (ISO year and week)
monthly    ``Monthly/YYYY-MM.md``       ``Monthly/2026-08.md``
quarterly  ``Quarterly/YYYY-[Q]Q.md``   ``Quarterly/2026-Q3.md``
yearly     ``Yearly/YYYY.md``           ``Yearly/2026.md``
=========  ===========================  ============================================

"Today" comes from ``EmulatorConfig.today``. A dated URL is read as JavaScript's
``new Date(year, month - 1, day)`` reads it, so ``2026/13/1`` is January 2027.
"""

from __future__ import annotations

import datetime as dt
import re

from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator import routes_vault, routes_write
from vaultgate.emulator.addressing import note_address, suffix_segments
from vaultgate.emulator.apierrors import ApiError, ErrorCode
from vaultgate.emulator.context import context_of
from vaultgate.emulator.urlpath import decode_component, encode_uri, raw_path
from vaultgate.engine import vaultfs

PERIODS = ("daily", "weekly", "monthly", "quarterly", "yearly")
_DATED = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})/")
_HANDLERS = {
    "PUT": routes_write.put,
    "POST": routes_write.post,
    "PATCH": routes_write.patch,
    "DELETE": routes_write.delete,
}


def note_path(period: str, day: dt.date) -> str:
    """The vault path of the ``period`` note that covers ``day``."""
    if period == "daily":
        return f"Daily/{day:%Y-%m-%d}.md"
    if period == "weekly":
        year, week, _ = day.isocalendar()
        return f"Weekly/{year:04d}-W{week:02d}.md"
    if period == "monthly":
        return f"Monthly/{day:%Y-%m}.md"
    if period == "quarterly":
        return f"Quarterly/{day:%Y}-Q{(day.month - 1) // 3 + 1}.md"
    if period == "yearly":
        return f"Yearly/{day:%Y}.md"
    raise ValueError(f"unknown period {period!r}")


def js_date(year: int, month: int, day: int) -> dt.date:
    """``new Date(year, month - 1, day)``: months and days past their range roll over."""
    carried_year, month_index = divmod(year * 12 + month - 1, 12)
    first = dt.date(carried_year, month_index + 1, 1)
    return first + dt.timedelta(days=day - 1)


async def periodic(request: Request) -> Response:
    context = context_of(request)
    behaviour = context.behaviour
    encoded = raw_path(request.scope).removeprefix("/periodic/")
    period_raw, slash, rest = encoded.partition("/")
    if not slash:  # /periodic/daily without its slash matches no route
        raise ApiError(status=404)
    prefix = f"/periodic/{period_raw}/"
    day = context.config.today()
    dated = _DATED.match(rest) if behaviour.periodic_dates else None
    if dated is not None:
        try:
            day = js_date(*(int(part) for part in dated.groups()))
        except (ValueError, OverflowError):
            raise ApiError(ErrorCode.PERIODIC_NOTE_DOES_NOT_EXIST) from None
        prefix += dated.group(0)
    period = decode_component(period_raw)
    if period not in PERIODS:
        raise ApiError(ErrorCode.PERIOD_DOES_NOT_EXIST)
    note = note_path(period, day)
    suffix = suffix_segments(context, request, prefix)
    exists = vaultfs.is_file(context.state, note)
    if request.method in ("GET", "HEAD", "DELETE") and not exists:
        raise ApiError(ErrorCode.PERIODIC_NOTE_DOES_NOT_EXIST)
    if not exists:
        vaultfs.write_text(context.state, note, "")
    if request.method in ("GET", "HEAD"):
        response = routes_vault.serve(context, request, [*note.split("/"), *suffix])
        response.headers["Content-Location"] = encode_uri(note)
        return response
    if request.method == "DELETE" and suffix:
        raise ApiError(
            status=405,
            detail="Deleting a targeted section via URL is not supported. Use PATCH with "
            "Operation: replace and an empty body instead.",
        )
    address = note_address(context, note, suffix)
    handler = _HANDLERS[request.method]
    return await routes_write.answer_with_location(handler(context, request, address), address)
