package mcp

// NOTE: the requestState of an InputRequiredResult (SEP-2322 asks a server
// to treat it as attacker-controlled, to protect its integrity and to bound
// its replay). It is
//
//	base64url(BODY) "." base64url(HMAC-SHA256(key, "\x00mcp/requestState\x00" BODY))
//
// where BODY is a JSON object: the expiry (unix seconds, stateTTL after it
// was issued), the request it belongs to (method, tool or prompt name or
// resource URI, and a SHA-256 digest of the arguments with their
// whitespace removed), the answers the handler used so far and the
// handler's own state. The key is the HTTP endpoint's SessionIDs key (the
// --mcp-key that replicas share, so that any of them takes the retry), or
// a random one of the Server for the other transports; the prefix keeps a
// state's MAC from ever being a session id's. A state that does not verify,
// has expired or belongs to another request is Invalid params. It is signed,
// not encrypted: the client can read what it carries.

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"sync"
	"time"
)

// stateTTL is how long a requestState is accepted after it was issued: long
// enough for a user to fill a form, short enough to bound a replay.
const stateTTL = 10 * time.Minute

const stateDomain = "\x00mcp/requestState\x00"

// stateBinding is what a requestState is bound to: its request.
type stateBinding struct {
	method string
	name   string
	args   []byte // raw
}

// stateBody is a requestState's content.
type stateBody struct {
	Exp     int64                      `json:"exp"`
	Method  string                     `json:"m"`
	Name    string                     `json:"n"`
	Args    []byte                     `json:"a"` // SHA-256 of the compacted arguments
	Answers map[string]json.RawMessage `json:"r,omitempty"`
	Data    []byte                     `json:"d,omitempty"`
}

// digest returns the SHA-256 of raw JSON arguments without whitespace
// (absent and null are {}).
func digest(args []byte) []byte {
	var b bytes.Buffer
	if len(args) == 0 || string(args) == "null" || json.Compact(&b, args) != nil {
		b.Reset()
		b.WriteString("{}")
	}
	sum := sha256.Sum256(b.Bytes())
	return sum[:]
}

func stateMAC(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(stateDomain))
	m.Write(body)
	return m.Sum(nil)
}

// seal returns the requestState of the call's next round.
func (st *inputState) seal() string {
	body := stateBody{Exp: time.Now().Add(stateTTL).Unix(), Method: st.bind.method, Name: st.bind.name,
		Args: digest(st.bind.args), Data: st.data}
	if len(st.kept) > 0 {
		body.Answers = make(map[string]json.RawMessage, len(st.kept))
		for _, e := range st.kept {
			body.Answers[e.key] = e.raw
		}
	}
	raw, err := json.Marshal(body)
	if err != nil { // the answers were checked as JSON objects
		panic(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(raw) + "." + enc.EncodeToString(stateMAC(st.key, raw))
}

// open verifies a request's requestState and takes its answers and data.
func (st *inputState) open(state []byte) error {
	bad := func(why string) error {
		return st.refuse("requestState " + why)
	}
	i := bytes.LastIndexByte(state, '.')
	if i < 0 {
		return bad("was not issued by this server")
	}
	enc := base64.RawURLEncoding
	raw, err1 := enc.DecodeString(string(state[:i]))
	mac, err2 := enc.DecodeString(string(state[i+1:]))
	if err1 != nil || err2 != nil || !hmac.Equal(mac, stateMAC(st.key, raw)) {
		return bad("was not issued by this server")
	}
	var body stateBody
	if json.Unmarshal(raw, &body) != nil {
		return bad("was not issued by this server")
	}
	switch {
	case time.Now().Unix() > body.Exp:
		return bad("has expired")
	case body.Method != st.bind.method || body.Name != st.bind.name || !hmac.Equal(body.Args, digest(st.bind.args)):
		return bad("belongs to another request")
	}
	for k, v := range body.Answers {
		st.carried = append(st.carried, inputEntry{key: k, raw: v})
	}
	st.data = body.Data
	return nil
}

// stateKey returns the key that signs the call's requestState: its HTTP
// endpoint's session key, else the Server's own.
func (c *call) stateKey() []byte {
	if c.tr != nil {
		if k := c.tr.StateKey(); k != nil {
			return k
		}
	}
	return c.srv.ext.ownKey.get()
}

// ownKey is a Server's random key for the requestState of the calls of
// transports without a SessionIDs (stdio), made on first use.
type ownKey struct {
	once sync.Once
	key  []byte
}

func (k *ownKey) get() []byte {
	k.once.Do(func() {
		k.key = make([]byte, 32)
		_, _ = rand.Read(k.key)
	})
	return k.key
}
