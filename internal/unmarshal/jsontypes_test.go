package unmarshal

import (
	"encoding/json"
	"testing"
)

type rawNumber struct {
	R  json.RawMessage            `json:"r"`
	PR *json.RawMessage           `json:"pr"`
	LR []json.RawMessage          `json:"lr"`
	MR map[string]json.RawMessage `json:"mr"`
	N  json.Number                `json:"n"`
	PN *json.Number               `json:"pn"`
	LN []json.Number              `json:"ln"`
}

func TestRawMessageNumber(t *testing.T) {
	ok := func(in string) { t.Helper(); check[rawNumber](t, in, false) }
	bad := func(in string) { t.Helper(); check[rawNumber](t, in, true) }
	ok(`{"r":null,"pr":null,"lr":[null,1],"mr":{"a":null}}`)
	ok(`{"r":{ "a" : [1, 2] },"pr":"x\u00e9","lr":[true,{},[]," s "],"mr":{"k":-0.5e+3}}`)
	ok(`{"r":"","pr":0}`)
	ok(`{"n":-12.5e-3,"pn":0,"ln":[1,2e5,-0]}`)
	ok(`{"n":"12","pn":"-0.5","ln":["1e2"]}`)
	ok(`{"n":"\u0031\u0032","n":null,"pn":null}`)
	bad(`{"r":tru}`)
	bad(`{"r":[1,]}`)
	bad(`{"n":""}`)
	bad(`{"n":"1x"}`)
	bad(`{"n":" 1"}`)
	bad(`{"n":"01"}`)
	bad(`{"n":true}`)
	bad(`{"n":{}}`)
	bad(`{"ln":[[]]}`)
	check[json.RawMessage](t, ` {"a":1} `, false)
	check[json.RawMessage](t, `null`, false)
	check[json.Number](t, `"1.5"`, false)
	check[json.Number](t, `1e400`, false)
	check[json.Number](t, `null`, false)
	check[json.Number](t, `"abc"`, true)
}
