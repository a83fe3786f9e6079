"""A throwaway SMTP sink for GatehouseMailTests, built on aiosmtpd.

Usage: smtp_sink.py OUTPUT_DIR [--user NAME --password SECRET]

Runs until its standard input closes (or SIGTERM). Listens on 127.0.0.1 on a free port and writes the port to OUTPUT_DIR/port once it accepts
connections. Each received message becomes OUTPUT_DIR/message-N.json: the envelope, the raw
bytes (base64) and what Python's own email parser makes of them, so the Swift tests check our
encoding against an independent decoder. Recipients starting with "reject" get a permanent 550,
those starting with "tempfail" a transient 451 (each such RCPT is counted in OUTPUT_DIR/rcpt-log).
With --user/--password, AUTH is required (over plain loopback: auth_require_tls=False).
"""
import argparse, asyncio, base64, email, email.policy, json, os, signal, sys, threading, warnings

# Loopback AUTH without TLS is the point of this sink; the warning would only clutter the log.
warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")

from aiosmtpd.smtp import SMTP, AuthResult


class Handler:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with open(os.path.join(self.directory, "rcpt-log"), "a") as log:
            log.write(address + "\n")
        if address.startswith("reject"):
            return "550 5.1.1 No such user here"
        if address.startswith("tempfail"):
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        self.count += 1
        # A multipart/alternative message: "body" is its text part, "html" its HTML part.
        text = parsed.get_body(preferencelist=("plain",)) if parsed.is_multipart() else parsed
        html = parsed.get_body(preferencelist=("html",)) if parsed.is_multipart() else None
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth_login": session.auth_data.login.decode() if session.auth_data else None,
            "raw_base64": base64.b64encode(raw).decode(),
            "headers": {name: str(value) for name, value in parsed.items()},
            "raw_headers": {name: value for name, value in parsed.raw_items()},
            "body": text.get_content().replace("\r\n", "\n") if text is not None else "",
            "html": html.get_content().replace("\r\n", "\n") if html is not None else None,
            "parts": [part.get_content_type() for part in parsed.iter_parts()] if parsed.is_multipart() else [],
            "defects": [type(d).__name__ for d in parsed.defects],
        }
        path = os.path.join(self.directory, f"message-{self.count}.json")
        with open(path + ".tmp", "w") as out:
            json.dump(record, out)
        os.replace(path + ".tmp", path)  # readers never see half a file
        return "250 Message accepted"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()
    handler = Handler(args.directory)
    options = {}
    if args.user:
        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login == args.user.encode() and auth_data.password == args.password.encode()
            # handled=False: let aiosmtpd send the 535 itself (the default, handled=True, sends nothing).
            return AuthResult(success=ok, handled=False, auth_data=auth_data)
        options = dict(authenticator=authenticator, auth_required=True, auth_require_tls=False)

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: SMTP(handler, hostname="sink.test", **options), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        with open(os.path.join(args.directory, "port.tmp"), "w") as out:
            out.write(str(port))
        os.replace(os.path.join(args.directory, "port.tmp"), os.path.join(args.directory, "port"))
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)

        def until_stdin_closes():
            sys.stdin.buffer.read()
            loop.call_soon_threadsafe(stop.set)

        # The test holds our stdin open and closes it to stop us; it closes by itself if the test
        # process dies, so the sink never outlives its test. A daemon thread, so exit never waits
        # for it. The upper bound is only a backstop: it must exceed the longest test that uses a sink, and in a
        # full, parallel suite on a loaded machine the mailer's 50 ms back-off can resume many seconds late
        # (a one-minute bound once stopped the sink between a test's first and second attempt).
        threading.Thread(target=until_stdin_closes, daemon=True).start()
        loop.call_later(900, stop.set)
        await stop.wait()
        server.close()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
