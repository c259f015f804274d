package mcpdemo

import (
	"context"
	"strconv"

	"github.com/jetrpc/jetrpc/mcp"
)

// LookupIn is test_custom_header's input. Its mcpheader tags mark region,
// shard and verbose with x-mcp-header in the input schema: a 2026-07-28
// client over HTTP mirrors them into the Mcp-Param-Region, Mcp-Param-Shard
// and Mcp-Param-Verbose headers (a load balancer can route on them), and
// the server rejects a call whose headers do not match (SEP-2243).
type LookupIn struct {
	Region  string `json:"region" mcpheader:"Region" description:"the region to look in"`
	Query   string `json:"query,omitempty" description:"what to look up"`
	Shard   *int64 `json:"shard,omitempty" mcpheader:"Shard" description:"the shard, if one"`
	Verbose bool   `json:"verbose,omitempty" mcpheader:"Verbose" description:"whether to say more"`
}

// headerTool is a tool whose arguments are mirrored into request headers.
func headerTool() *mcp.Tool {
	t := mcp.NewTool("test_custom_header", "Looks a query up in a region; region, shard and verbose travel in Mcp-Param-* headers too.",
		func(_ context.Context, in LookupIn) (*mcp.Result, error) {
			text := "region=" + in.Region + " query=" + in.Query
			if in.Shard != nil {
				text += " shard=" + strconv.FormatInt(*in.Shard, 10)
			}
			if in.Verbose {
				text += " verbose"
			}
			return mcp.TextResult(text), nil
		})
	t.Inline = true // cheap, and it sends nothing before its result
	return t
}
