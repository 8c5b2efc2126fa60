"""The browser Control UI at `/` on the gateway's port (static ES modules, no build step).

The page is an operator client like OpenClaw's own: it signs in with the gateway token
(kept in the tab's session storage, never in a URL, never in a cookie), speaks the
WebSocket protocol for chat (streamed replies, tool events, exec approvals) and session
actions, and reads the few things the protocol has no method for (search, status, the
turn inspector) from `/ui/api/...` with the same bearer token. With no ambient
credential (no cookie) there is nothing for a cross-site request to ride on, so every
state change is CSRF-safe by construction.
"""
