package encode_test

import (
	"errors"
	"os"

	"github.com/jetrpc/jetrpc/encode"
)

func Example() {
	var dst []byte
	dst = encode.AppendResult(dst, []byte(`9007199254740993`), []byte(`{"sum":19}`))
	dst = append(dst, '\n')
	dst = encode.AppendStdError(dst, nil, encode.CodeParseError)
	dst = append(dst, '\n')
	dst = encode.AppendError(dst, []byte(`"a\u0041"`), encode.CodeInvalidParams, "want \"a\" and \"b\"", []byte(`{"got":1}`))
	dst = append(dst, '\n')
	dst = encode.AppendRequest(dst, []byte(`1`), "subtract", []byte(`[42,23]`))
	dst = append(dst, '\n')
	dst = encode.AppendNotification(dst, "update", nil)
	dst = append(dst, '\n')
	os.Stdout.Write(dst)
	// Output:
	// {"jsonrpc":"2.0","id":9007199254740993,"result":{"sum":19}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
	// {"jsonrpc":"2.0","id":"a\u0041","error":{"code":-32602,"message":"want \"a\" and \"b\"","data":{"got":1}}}
	// {"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}
	// {"jsonrpc":"2.0","method":"update"}
}

func ExampleFinishBatch() {
	members := [][]byte{
		encode.AppendResult(nil, []byte(`1`), []byte(`7`)),
		nil, // a notification: no response
		encode.AppendStdError(nil, []byte(`"x"`), encode.CodeMethodNotFound),
	}
	var dst []byte
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	for _, m := range members {
		dst = encode.AppendBatchMember(dst, start, m)
	}
	dst = encode.FinishBatch(dst, start)
	os.Stdout.Write(append(dst, '\n'))

	// A batch of only notifications produces nothing at all.
	dst = encode.AppendBatchStart(dst[:0])
	dst = encode.AppendBatchMember(dst, 0, nil)
	dst = encode.FinishBatch(dst, 0)
	os.Stdout.Write(append(dst, "len="...))
	os.Stdout.Write(append(encode.AppendInt(nil, int64(len(dst))), '\n'))
	// Output:
	// [{"jsonrpc":"2.0","id":1,"result":7},{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}}]
	// len=0
}

func ExampleCode_Err() {
	err := error(encode.NewError(encode.CodeInvalidParams, "minuend must be a number", nil))
	os.Stdout.WriteString(err.Error() + "\n")
	if errors.Is(err, encode.CodeInvalidParams.Err()) {
		os.Stdout.WriteString("invalid params\n")
	}
	// Output:
	// jsonrpc: code -32602: minuend must be a number
	// invalid params
}

// A gateway answers with an upstream's error object as it came, under its
// client's id.
func ExampleAppendErrorObject() {
	dst := encode.AppendErrorObject(nil, []byte(`"a\u0041"`), []byte(`{ "message":"caf\u00e9", "code": 3, "x": true }`))
	os.Stdout.Write(dst)
	// Output:
	// {"jsonrpc":"2.0","id":"a\u0041","error":{ "message":"caf\u00e9", "code": 3, "x": true }}
}
