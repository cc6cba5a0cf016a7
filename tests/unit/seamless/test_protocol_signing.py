"""Our signing agrees with the protocol's public example vectors (vectors/README.md): the
demo key signs each example exactly as published, its public key verifies each published
signature, and nothing else verifies."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from teenpatti.seamless.signing import (
    SigningKeyError,
    generate_private_key,
    load_private_key,
    load_public_key,
    private_key_pem,
    public_key_pem,
    sign,
    verify,
    write_key_pair,
)

VECTORS = Path(__file__).parent / "vectors"
DEMO_PRIVATE = load_private_key((VECTORS / "private.pem").read_bytes())
DEMO_PUBLIC = load_public_key((VECTORS / "public.pub").read_bytes())


def _examples() -> list[tuple[bytes, str]]:
    lines = (VECTORS / "signatures.csv").read_text().splitlines()
    assert lines[0] == "data;signature"
    # the signature is Base64, never holds ";": the data is everything before the last one
    return [
        (data.encode(), signature)
        for data, _, signature in (line.rpartition(";") for line in lines[1:])
    ]


EXAMPLES = _examples()


def test_there_are_examples_with_json_bodies() -> None:
    assert len(EXAMPLES) == 5
    assert any(data.startswith(b'{"game_id":132') for data, _ in EXAMPLES)


@pytest.mark.parametrize(("data", "signature"), EXAMPLES)
def test_signing_with_the_demo_key_gives_the_published_signature(
    data: bytes, signature: str
) -> None:
    # PKCS#1 v1.5 is deterministic: the same key and bytes give the same signature
    assert sign(DEMO_PRIVATE, data) == signature


@pytest.mark.parametrize(("data", "signature"), EXAMPLES)
def test_the_demo_public_key_verifies_the_published_signature(data: bytes, signature: str) -> None:
    assert verify([DEMO_PUBLIC], data, signature)


@pytest.mark.parametrize(("data", "signature"), EXAMPLES)
def test_a_changed_byte_fails(data: bytes, signature: str) -> None:
    changed = bytes([data[0] ^ 0x01]) + data[1:]
    assert not verify([DEMO_PUBLIC], changed, signature)
    assert not verify([DEMO_PUBLIC], data + b" ", signature)
    raw = bytearray(base64.b64decode(signature))
    raw[-1] ^= 0x01
    assert not verify([DEMO_PUBLIC], data, base64.b64encode(bytes(raw)).decode())


def test_a_signature_of_other_bytes_fails() -> None:
    (first, first_signature), (second, _) = EXAMPLES[0], EXAMPLES[1]
    assert not verify([DEMO_PUBLIC], second, first_signature)
    assert verify([DEMO_PUBLIC], first, first_signature)


@pytest.mark.parametrize("signature", [None, "", "not base64!", "dGVzdA=="])
def test_missing_or_garbled_signatures_fail(signature: str | None) -> None:
    data, _ = EXAMPLES[0]
    assert not verify([DEMO_PUBLIC], data, signature)


def test_no_keys_verify_nothing() -> None:
    data, signature = EXAMPLES[0]
    assert not verify([], data, signature)


def test_key_rollover_accepts_either_key_and_no_other() -> None:
    data, signature = EXAMPLES[2]
    new_key = generate_private_key()
    new_signature = sign(new_key, data)
    during = [DEMO_PUBLIC, load_public_key(public_key_pem(new_key))]
    assert verify(during, data, signature)
    assert verify(during, data, new_signature)
    # after the rollover the old key's signatures no longer verify
    assert not verify([load_public_key(public_key_pem(new_key))], data, signature)
    # a third, unknown key's signature verifies under neither
    assert not verify(during, data, sign(generate_private_key(), data))


def test_a_written_key_pair_signs_and_verifies(tmp_path: Path) -> None:
    private, public = write_key_pair(tmp_path)
    assert private.stat().st_mode & 0o077 == 0
    body = b'{"user":"p1"}'
    signature = sign(load_private_key(private.read_bytes()), body)
    assert verify([load_public_key(public.read_bytes())], body, signature)


def test_a_generated_key_round_trips_through_pem() -> None:
    key = generate_private_key()
    again = load_private_key(private_key_pem(key))
    body = b'{"user":"p1"}'
    assert verify([load_public_key(public_key_pem(again))], body, sign(key, body))
    assert public_key_pem(again) == public_key_pem(key)


@pytest.mark.parametrize(
    "pem",
    [
        b"",
        b"-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n",
        (VECTORS / "private.pem").read_bytes(),  # a private key where a public one is due
    ],
)
def test_unreadable_public_keys_are_refused(pem: bytes) -> None:
    with pytest.raises(SigningKeyError):
        load_public_key(pem)


def test_a_public_key_is_not_a_signing_key() -> None:
    with pytest.raises(SigningKeyError):
        load_private_key((VECTORS / "public.pub").read_bytes())


def test_short_and_non_rsa_keys_are_refused() -> None:
    short = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(SigningKeyError, match="1024 bits"):
        load_private_key(private_key_pem(short))
    with pytest.raises(SigningKeyError, match="1024 bits"):
        load_public_key(public_key_pem(short))
    elliptic = ec.generate_private_key(ec.SECP256R1())
    pem = elliptic.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(SigningKeyError, match="not RSA"):
        load_public_key(pem)
