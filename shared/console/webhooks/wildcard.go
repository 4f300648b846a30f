package webhooks

// Wildcard subscribes an endpoint to every event type, present and future.
const Wildcard = "*"
