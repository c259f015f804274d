// Package ws reads and writes WebSocket frames (RFC 6455 section 5) on
// a connection whose opening handshake is done, for both sides of it.
//
// A Reader hands out whole messages (text or binary, continuation frames
// joined) and, as results of their own, the control frames (ping, pong,
// close), whose answer is the caller's: it writes them through its own
// write path, so that they never interleave with its data frames. The bytes
// handed out are slices of the Reader's buffer, unmasked in place, valid
// until the next call; once the buffer has grown to fit the traffic, reading
// allocates nothing. The Reader enforces the rules a peer must keep: no
// reserved bits but permessage-deflate's RSV1, known opcodes, short and
// unfragmented control frames, masking (a client masks every frame, a server
// none), well-formed close payloads and a message limit (*TooLargeError,
// answered with close 1009).
//
// Text messages must be valid UTF-8 (RFC 3629: no surrogates, overlong
// forms or code points above U+10FFFF). The Reader checks them as their
// bytes are read, frame by frame and read by read, so that a bad sequence
// fails the connection (RFC 6455 section 8.1) as soon as it is read, before
// the rest of its frame or message (what Autobahn|Testsuite calls failing
// fast); a character cut between fragments or reads is fine unless the
// message ends inside it (section 5.6). The error
// is a *UTF8Error (errors.Is ErrInvalidUTF8), answered with close 1007
// (CloseInvalidData); it is not a protocol error. Binary messages and the
// payloads of pings and pongs are not checked. A close frame's reason must
// be UTF-8 too (section 5.5.1): ErrCloseReason is a protocol error (close
// 1002), since a close frame is a control frame, not a message.
//
// Writing is append-style: AppendFrame, AppendClose, and AppendHeader with
// Mask.Apply for a caller that encodes a message straight into its frame.
//
// permessage-deflate (RFC 7692) is negotiated with AcceptDeflate (a
// server), AppendDeflate and ParseDeflateAnswer (a client). A Reader told
// of the agreement (SetDeflate) inflates messages whose first frame says
// RSV1, held to the message limit (a bomb is a *TooLargeError); RSV1 on a
// control or continuation frame is a protocol error, a stream that does
// not inflate is ErrInflate (close 1007). A Compressor compresses the
// messages a side sends at or above a size threshold, from pooled flate
// writers when it keeps no context. CloseCode maps each error of a Reader
// to the close code that answers it.
//
// HandshakeConn lets a client take over the connection from an HTTP
// library after the handshake without losing the bytes the server sent
// right behind its 101 answer.
//
// The package uses the standard library and klauspost/compress's flate:
// with compress/flate, inflating a 64 KiB message allocated 11 times (for
// each dynamic Huffman block) and deflate with inflate took 1.6 times the
// CPU for 20% more bytes (bench/ws_deflate.sh, one run of 2026-12-06).
package ws
