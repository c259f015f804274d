package gen_test

import (
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/openrpc/gen"
)

func ExampleGenerate() {
	doc := `{"openrpc":"1.3.2","info":{"title":"Math","version":"1.0.0"},"methods":[
		{"name":"add","summary":"Adds a and b.","params":[
			{"name":"a","schema":{"type":"integer"},"required":true},
			{"name":"b","schema":{"type":"integer"},"required":true}],
		 "result":{"name":"sum","schema":{"type":"integer"}}}]}`
	src, err := gen.Generate([]byte(doc), &gen.Options{Package: "math"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for line := range strings.Lines(string(src)) {
		if strings.HasPrefix(line, "func ") || strings.HasPrefix(line, "\tAdd(") {
			fmt.Print(line)
		}
	}
	// Output:
	// func NewClient(c *client.Client) *Client { return &Client{c: c} }
	// func (c *Client) Add(ctx context.Context, a int64, b int64) (int64, error) {
	// 	Add(ctx context.Context, a int64, b int64) (int64, error)
	// func Register(e *dispatch.Engine, srv Server) error {
	// func Docs() map[string]openrpc.MethodDoc {
}
