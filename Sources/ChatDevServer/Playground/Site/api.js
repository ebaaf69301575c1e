// The REST side of the chat API, as the official JavaScript SDK calls it: the API key in the
// query, the user's token in Authorization with stream-auth-type: jwt, JSON bodies; uploads as
// multipart through XMLHttpRequest, which reports upload progress (fetch does not).

/** A refused request: Stream's error code and message, and the HTTP status. */
export class APIError extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export class ChatAPI {
  /** `session` is what POST /playground/session answered: api_key, token, user. */
  constructor(session) {
    this.apiKey = session.api_key;
    this.token = session.token;
    this.user = session.user;
    /** Set once the WebSocket is open; sent with the calls that watch channels. */
    this.connectionId = null;
  }

  url(path, query = {}) {
    const url = new URL(path, location.origin);
    url.searchParams.set("api_key", this.apiKey);
    if (this.connectionId) url.searchParams.set("connection_id", this.connectionId);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url;
  }

  headers() {
    return { Authorization: this.token, "stream-auth-type": "jwt", "X-Stream-Client": "chatbotkit-playground" };
  }

  async request(method, path, { body, query } = {}) {
    const headers = this.headers();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(this.url(path, query), {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answer(response.status, await response.text());
  }

  channelPath(cid) {
    const [type, ...rest] = cid.split(":");
    return `/channels/${encodeURIComponent(type)}/${encodeURIComponent(rest.join(":"))}`;
  }

  queryChannels() {
    return this.request("POST", "/channels", {
      body: { filter_conditions: { members: { $in: [this.user.id] } }, sort: [{ field: "last_message_at", direction: -1 }],
              state: true, watch: true, presence: false, limit: 30, message_limit: 0 },
    });
  }

  watchChannel(cid) {
    return this.request("POST", `${this.channelPath(cid)}/query`, {
      body: { state: true, watch: true, presence: false, messages: { limit: 50 } },
    });
  }

  sendMessage(cid, message) {
    return this.request("POST", `${this.channelPath(cid)}/message`, { body: { message } });
  }

  updateMessage(message) {
    return this.request("POST", `/messages/${encodeURIComponent(message.id)}`, { body: { message } });
  }

  deleteMessage(id) {
    return this.request("DELETE", `/messages/${encodeURIComponent(id)}`);
  }

  replies(parentId) {
    return this.request("GET", `/messages/${encodeURIComponent(parentId)}/replies`, { query: { limit: "100" } });
  }

  react(messageId, type) {
    return this.request("POST", `/messages/${encodeURIComponent(messageId)}/reaction`, {
      body: { reaction: { type }, enforce_unique: false },
    });
  }

  unreact(messageId, type) {
    return this.request("DELETE", `/messages/${encodeURIComponent(messageId)}/reaction/${encodeURIComponent(type)}`);
  }

  /** Presses a button of a command's answer: `{[name]: value}` as the form data. */
  runAction(messageId, formData) {
    return this.request("POST", `/messages/${encodeURIComponent(messageId)}/action`, { body: { form_data: formData } });
  }

  markRead(cid) {
    return this.request("POST", `${this.channelPath(cid)}/read`, { body: {} });
  }

  sendEvent(cid, event) {
    return this.request("POST", `${this.channelPath(cid)}/event`, { body: { event } });
  }

  castVote(messageId, pollId, optionId) {
    return this.request("POST", `/messages/${encodeURIComponent(messageId)}/polls/${encodeURIComponent(pollId)}/vote`, {
      body: { vote: { option_id: optionId } },
    });
  }

  removeVote(messageId, pollId, voteId) {
    return this.request(
      "DELETE", `/messages/${encodeURIComponent(messageId)}/polls/${encodeURIComponent(pollId)}/vote/${encodeURIComponent(voteId)}`);
  }

  closePoll(pollId) {
    return this.request("PATCH", `/polls/${encodeURIComponent(pollId)}`, { body: { set: { is_closed: true } } });
  }

  createPoll(poll) {
    return this.request("POST", "/polls", { body: poll });
  }

  /**
   * Uploads `file` to the channel's `/image` or `/file` (`kind`) and resolves with the answer
   * ({file, thumb_url}); `onProgress(sent, total)` follows the bytes going out.
   */
  upload(cid, file, kind, onProgress) {
    const body = new FormData();
    body.append("file", file, file.name);
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("POST", this.url(`${this.channelPath(cid)}/${kind}`));
      for (const [key, value] of Object.entries(this.headers())) request.setRequestHeader(key, value);
      request.upload.addEventListener("progress", (event) => {
        if (event.lengthComputable) onProgress(event.loaded, event.total);
      });
      request.addEventListener("load", () => {
        try {
          resolve(answer(request.status, request.responseText));
        } catch (error) {
          reject(error);
        }
      });
      request.addEventListener("error", () => reject(new APIError(`the upload of ${file.name} failed: no answer`, -1, 0)));
      request.send(body);
    });
  }
}

/** The users there are to pick from (dev mode only). */
export async function playgroundUsers() {
  const response = await fetch("/playground/users");
  return answer(response.status, await response.text()).users;
}

/** A token for `userId` (made if new), a member of `channel` when given (dev mode only). */
export async function playgroundSession(userId, name, channel) {
  const response = await fetch("/playground/session", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_id: userId, name: name || undefined, channel: channel || undefined }),
  });
  return answer(response.status, await response.text());
}

function answer(status, text) {
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new APIError(`the server answered ${status} with something that is not JSON`, -1, status);
  }
  if (status < 200 || status > 299) throw new APIError(json.message || `HTTP ${status}`, json.code, status);
  return json;
}
