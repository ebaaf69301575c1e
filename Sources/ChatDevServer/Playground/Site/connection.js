// The event connection: the WebSocket at /connect, opened as stream-chat-js opens it (the
// credentials and the connect request in the query), open once the first health.check gives
// the connection id. It answers health checks as the JS SDK does, and opens again after a drop
// with the SDKs' jittered backoff; the page then watches its channels again (`onReconnect`).

export class EventConnection {
  constructor(api, { onEvent, onReconnect, onStatus }) {
    this.api = api;
    this.onEvent = onEvent;
    this.onReconnect = onReconnect;
    this.onStatus = onStatus;
    this.socket = null;
    this.failures = 0;
    this.closedOnPurpose = false;
    this.pingTimer = null;
  }

  /** Resolves with the health check that opened the connection; rejects on connection.error. */
  open() {
    this.closedOnPurpose = false;
    const url = new URL("/connect", location.origin);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const user = this.api.user;
    url.searchParams.set("json", JSON.stringify({
      user_id: user.id, user_details: { id: user.id, ...(user.name ? { name: user.name } : {}) },
      server_determines_connection_id: true,
    }));
    url.searchParams.set("api_key", this.api.apiKey);
    url.searchParams.set("authorization", this.api.token);
    url.searchParams.set("stream-auth-type", "jwt");
    url.searchParams.set("X-Stream-Client", "chatbotkit-playground");
    return new Promise((resolve, reject) => {
      let opened = false;
      const socket = new WebSocket(url);
      this.socket = socket;
      socket.addEventListener("message", (message) => {
        let event;
        try {
          event = JSON.parse(message.data);
        } catch {
          return; // not JSON: nothing a client could act on
        }
        if (!opened) {
          if (event.type === "connection.error" || event.error) {
            reject(new Error(event.error?.message || "the connection was refused"));
            return;
          }
          opened = true;
          this.failures = 0;
          this.api.connectionId = event.connection_id;
          this.onStatus("connected");
          resolve(event);
        }
        if (event.type === "health.check") this.schedulePing(event);
        else this.onEvent(event);
      });
      socket.addEventListener("close", (close) => {
        clearTimeout(this.pingTimer);
        if (!opened) reject(new Error(close.reason || "the connection closed before it opened"));
        // Code 1000 is a refusal for good (a bad token); anything else is a drop.
        if (this.closedOnPurpose || close.code === 1000) {
          this.onStatus("disconnected");
          return;
        }
        this.onStatus("reconnecting");
        this.reconnectLater();
      });
    });
  }

  /** The JS SDK's client health check, 25 s after each one from the server. */
  schedulePing(event) {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      if (this.socket?.readyState === WebSocket.OPEN) {
        this.socket.send(JSON.stringify([{ type: "health.check", client_id: `${this.api.user.id}--${event.connection_id}` }]));
      }
    }, 25000);
  }

  reconnectLater() {
    this.failures += 1;
    const n = this.failures;
    const low = Math.min(Math.max(0.25, (n - 1) * 2), 25);
    const high = Math.min(0.5 + 2 * n, 25);
    const delay = (low + Math.random() * (high - low)) * 1000;
    setTimeout(async () => {
      try {
        await this.open();
        await this.onReconnect();
      } catch {
        // A failed open closes its socket, and the close schedules the next try.
      }
    }, delay);
  }

  close() {
    this.closedOnPurpose = true;
    clearTimeout(this.pingTimer);
    this.socket?.close(1000, "closed by the page");
  }
}
