"""What our own HTTP/1.1 client of operators' wallets writes (teenpatti.seamless.http11),
byte for byte, and the URLs and headers it refuses to write; the span attributes it names as
OpenTelemetry's instrumentations do. Its connections are tested over real sockets
(tests/integration/operator_http/test_http11_client.py)."""

from __future__ import annotations

import pytest

from teenpatti.seamless.http11 import Http11Transport, _request, _Semconv


def head(url: str) -> bytes:
    _, written = Http11Transport()._route(url)
    return written


def test_a_request_carries_its_path_host_headers_and_length() -> None:
    written = _request(
        head("http://wallet.test:8080/api/transaction/bet"),
        b'{"a":1}',
        {"Content-Type": "application/json", "X-Hub88-Signature": "c2ln"},
    )
    assert written == (
        b"POST /api/transaction/bet HTTP/1.1\r\n"
        b"Host: wallet.test:8080\r\n"
        b"User-Agent: teenpatti\r\n"
        b"Content-Type: application/json\r\n"
        b"X-Hub88-Signature: c2ln\r\n"
        b"Content-Length: 7\r\n"
        b"\r\n"
        b'{"a":1}'
    )


@pytest.mark.parametrize(
    ("url", "line", "host"),
    [
        ("https://wallet.test/user/balance", b"POST /user/balance HTTP/1.1", b"wallet.test"),
        ("http://wallet.test:80/a?b=c", b"POST /a?b=c HTTP/1.1", b"wallet.test"),
        ("http://[::1]:8443/x", b"POST /x HTTP/1.1", b"[::1]:8443"),
        ("http://wallet.test/caf\u00e9/bet", b"POST /caf%C3%A9/bet HTTP/1.1", b"wallet.test"),
    ],
)
def test_the_request_line_and_host_of_a_url(url: str, line: bytes, host: bytes) -> None:
    first, second = head(url).split(b"\r\n")[:2]
    assert (first, second) == (line, b"Host: " + host)


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("http://user:secret@wallet.test/", "no user or password"),
        ("ftp://wallet.test/", "not an http"),
        ("http:///path-only", "not an http"),
    ],
)
def test_a_url_that_is_not_an_operators_is_refused(url: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=refusal):
        head(url)


@pytest.mark.parametrize("value", ["a\r\nInjected: yes", "a\nb", "a\x00b"])
def test_a_header_holding_a_line_break_is_never_written(value: str) -> None:
    with pytest.raises(ValueError, match="line break"):
        _request(head("http://wallet.test/"), b"", {"traceparent": value})


@pytest.mark.parametrize(
    ("opt_in", "names", "status"),
    [
        ("", {"http.method", "http.url"}, ("http.status_code",)),
        (
            "http",
            {"http.request.method", "url.full", "server.address", "server.port"},
            ("http.response.status_code",),
        ),
        (
            "http/dup",
            {
                "http.method",
                "http.url",
                "http.request.method",
                "url.full",
                "server.address",
                "server.port",
            },
            ("http.status_code", "http.response.status_code"),
        ),
    ],
)
def test_span_attributes_follow_the_semantic_conventions_opt_in(
    opt_in: str, names: set[str], status: tuple[str, ...]
) -> None:
    semconv = _Semconv(opt_in)
    assert set(semconv.request("http://wallet.test:8080/user/balance")) == names
    assert semconv.status_attributes == status
