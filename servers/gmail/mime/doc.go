// Package mime turns mail into text a model can read and text into mail Gmail can send: charset
// decoding, HTML to plain text, "view in browser" stub detection, and composing RFC 5322
// messages with alternative bodies and attachments.
package mime
