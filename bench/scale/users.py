#!/usr/bin/env python3
"""Writes COUNT users as `gatehouse user import` JSON lines (docs/importing-users.md) to stdout.

Usage: bench/scale/users.py COUNT PASSWORD_HASH

Every row carries PASSWORD_HASH, one Argon2id PHC string computed once (by `gatehouse user create`), so the
import does not pay Argon2id per row and every account signs in with that one known password. Each row has an
external id and one provider identity, as a Devise + OmniAuth export would; emails are u<N>@scale.example.
"""
import json
import sys


def main() -> None:
    count, password_hash = int(sys.argv[1]), sys.argv[2]
    out = sys.stdout
    base = 1_500_000_000  # creation times a few seconds apart, in the past, in row order
    for number in range(1, count + 1):
        out.write(json.dumps({
            "email": f"u{number}@scale.example",
            "name": f"Scale User {number}",
            "verified": True,
            "created_at": base + number * 7,
            "password_hash": password_hash,
            "external_id": f"ext-{number}",
            "identities": [{"provider": "google_oauth2", "uid": f"g-{number}", "email": f"u{number}@scale.example"}],
        }, separators=(",", ":")))
        out.write("\n")


if __name__ == "__main__":
    main()
