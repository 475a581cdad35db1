"""Schemathesis hook for test/fuzz/schemathesis.test.ts.

A registered webhook endpoint receives real deliveries. Before any request to an endpoints operation is sent, a
generated `url` that could be an https URL (the only scheme the service accepts) is pointed at a closed port on
loopback instead, so the fuzzer can never make the service post to a host outside this machine. The URL parser
ignores ASCII whitespace and control characters and the scheme's case, so those are ignored here too.
"""

import re

import schemathesis

SAFE_URL = "https://localhost:9/fuzzed"


@schemathesis.hook
def before_call(context, case, kwargs):
    if "/endpoints" not in case.path or not isinstance(case.body, dict):
        return
    url = case.body.get("url")
    if isinstance(url, str) and "https:" in re.sub(r"[\x00-\x20]", "", url).lower():
        case.body["url"] = SAFE_URL
