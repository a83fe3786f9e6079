"""The native half of the bridge (Source/Bridge/Bridge.swift, BridgeDelegate.swift).

bridge.js posts the bare string "ready"; native answers `nativeBridge.register([names])` — here
after `register_delay` seconds, to reproduce the window in which a real app has not answered yet.
A message is delivered only when `data.metadata.url` equals the web view's current URL
(BridgeDelegate.bridgeDidReceiveMessage: `resolvedLocation == message.metadata?.url`) and its
component is registered natively; otherwise it is dropped. A message that reaches native before
register() ran on that document was not queued by the web side: recorded as a violation (the real
web library, hotwire-native-bridge's Bridge.send, holds messages until setAdapter).
"""
import json
import threading


class Bridge:
    def __init__(self, app, components, register_delay):
        self.app = app
        self.components = dict(components)   # name → component object with on_receive(message, context)
        self.register_delay = register_delay

    @property
    def events(self):
        return self.app.events

    def did_receive(self, web_view, body, href):
        if body == "ready":
            web_view.bridge_ready = True
            generation = web_view.generation
            self.events.record("bridge_ready", web_view.name, url=href)
            delay = self.register_delay

            def register():
                if web_view.generation != generation:
                    return   # that document is gone
                names = list(self.components)
                web_view.evaluate(f"window.nativeBridge.register({json.dumps(names)})")
                web_view.bridge_registered = True
                self.events.record("bridge_registered", web_view.name, components=names, url=web_view.url)

            if delay:
                threading.Timer(delay, lambda: self.app.call_soon(register)).start()
            else:
                self.app.call_soon(register)
            return
        if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("id", "component", "event")):
            self.events.record("bridge_message_unhandled", web_view.name, body=body)
            return
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        metadata_url = (data.get("metadata") or {}).get("url") if isinstance(data.get("metadata"), dict) else None
        self.events.record("bridge_message", web_view.name, id=body["id"], component=body["component"],
                           event=body["event"], data=data, metadata_url=metadata_url, web_view_url=web_view.url)
        if not web_view.bridge_registered:
            self.events.record("bridge_violation", web_view.name, id=body["id"], component=body["component"],
                               reason="sent before native registered its components (not queued by the web library)")
        if metadata_url != web_view.url:
            self.events.record("bridge_message_dropped", web_view.name, id=body["id"], reason="metadata.url",
                               metadata_url=metadata_url, web_view_url=web_view.url)
            return
        component = self.components.get(body["component"])
        if component is None:
            self.events.record("bridge_message_dropped", web_view.name, id=body["id"], reason="unknown component")
            return
        component.on_receive(dict(body, data=data), BridgeContext(self.app, web_view))


class BridgeContext:
    """What a BridgeComponent sees: its web view and `reply(with:)`."""

    def __init__(self, app, web_view):
        self.app = app
        self.web_view = web_view

    def reply(self, message):
        self.app.events.record("bridge_reply", self.web_view.name, id=message.get("id"), event=message.get("event"),
                               data=message.get("data"))
        self.web_view.evaluate(f"window.nativeBridge.replyWith({json.dumps(message)})")
