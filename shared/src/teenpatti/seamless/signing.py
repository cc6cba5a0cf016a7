"""Signatures of the operator wallet protocol: RSA-SHA256, PKCS#1 v1.5 padding, over the
exact bytes of a body, Base64 in a header (`SIGNATURE_HEADER`).

Verification runs over the bytes as received, before anything parses them, and accepts any
of the operator's keys, so that a key can be rolled over with two valid at once
(docs/decisions/0064-the-operator-wallet-wire.md).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

PrivateKey = rsa.RSAPrivateKey
PublicKey = rsa.RSAPublicKey

SIGNATURE_HEADER = "X-Hub88-Signature"
_Key = TypeVar("_Key", rsa.RSAPrivateKey, rsa.RSAPublicKey)
# below this, RSA keys are breakable in practice; the protocol's demo key has 2048 bits
MIN_KEY_BITS = 2048


class SigningKeyError(ValueError):
    """A key is not a readable PEM RSA key of at least `MIN_KEY_BITS` bits."""


def load_private_key(pem: bytes) -> PrivateKey:
    """Our signing key, from an unencrypted PEM (PKCS#1 or PKCS#8)."""
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise SigningKeyError(f"not a readable unencrypted PEM private key: {error}") from error
    if not isinstance(key, rsa.RSAPrivateKey):
        raise SigningKeyError(f"the private key is {type(key).__name__}, not RSA")
    return _long_enough(key)


def load_public_key(pem: bytes) -> PublicKey:
    """An operator's key, from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) or `RSA PUBLIC KEY`."""
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise SigningKeyError(f"not a readable PEM public key: {error}") from error
    if not isinstance(key, rsa.RSAPublicKey):
        raise SigningKeyError(f"the public key is {type(key).__name__}, not RSA")
    return _long_enough(key)


def _long_enough(key: _Key) -> _Key:
    if key.key_size < MIN_KEY_BITS:
        raise SigningKeyError(f"the key has {key.key_size} bits, fewer than {MIN_KEY_BITS}")
    return key


def generate_private_key() -> PrivateKey:
    """A fresh key pair's private half (tests and `make run` make their own)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=MIN_KEY_BITS)


def write_key_pair(folder: Path, name: str = "signing") -> tuple[Path, Path]:
    """A fresh key pair as `<name>.pem` (private, readable by its owner only) and
    `<name>.pub.pem` in `folder`: for tests and `make run`, never production keys."""
    key = generate_private_key()
    private, public = folder / f"{name}.pem", folder / f"{name}.pub.pem"
    private.touch(mode=0o600)
    private.write_bytes(private_key_pem(key))
    public.write_bytes(public_key_pem(key))
    return private, public


def private_key_pem(key: PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_key_pem(key: PrivateKey | PublicKey) -> bytes:
    """The PEM an operator is given to verify what we sign."""
    public = key.public_key() if isinstance(key, rsa.RSAPrivateKey) else key
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def sign(private_key: PrivateKey, body: bytes) -> str:
    """The header value for `body`: Base64 of its RSA-SHA256 PKCS#1 v1.5 signature."""
    signature = private_key.sign(body, padding.PKCS1v15(), hashes.SHA256())
    return base64.b64encode(signature).decode("ascii")


def verify(public_keys: Sequence[PublicKey], body: bytes, signature: str | None) -> bool:
    """Whether `signature` signs exactly `body` under any of `public_keys` (rollover).
    No signature, or one that is not strict Base64, verifies under none."""
    if not signature:
        return False
    try:
        raw = base64.b64decode(signature.strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    for key in public_keys:
        try:
            key.verify(raw, body, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            continue
        return True
    return False
