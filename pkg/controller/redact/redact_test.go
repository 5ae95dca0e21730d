package redact

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerptRemovesCredentials(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:s3cret-Passw0rd"))
	cases := []struct {
		name, in string
		secrets  []string
		gone     []string
		kept     []string
	}{
		{name: "echoed Authorization header", in: "unauthorized: got header Authorization: Basic " + basic + " for /v2/",
			gone: []string{basic}, kept: []string{"unauthorized", "Authorization: " + Mask}},
		{name: "bearer token in prose", in: "token Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc123DEF456ghi rejected",
			gone: []string{"eyJhbGciOiJIUzI1NiJ9"}, kept: []string{"rejected"}},
		{name: "known password", in: "login failed for alice with s3cret-Passw0rd", secrets: []string{"s3cret-Passw0rd"},
			gone: []string{"s3cret-Passw0rd"}, kept: []string{"login failed for alice"}},
		{name: "known password base64 encoded", in: "got " + base64.StdEncoding.EncodeToString([]byte("hunter22")),
			secrets: []string{"hunter22"}, gone: []string{base64.StdEncoding.EncodeToString([]byte("hunter22"))}},
		{name: "key value pairs", in: `password=hunter2 token: abc.def "secret":"xyz" api_key=k1 AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI`,
			gone: []string{"hunter2", "abc.def", `"xyz"`, "k1", "wJalrXUtnFEMI"}, kept: []string{"password=" + Mask, "AWS_SECRET_ACCESS_KEY=" + Mask}},
		{name: "url userinfo", in: "dial https://bob:pa55word@registry.example.com/v2/ failed",
			gone: []string{"pa55word", "bob:"}, kept: []string{"https://" + Mask + "@registry.example.com/v2/"}},
		{name: "presigned url", in: "GET https://b.s3.amazonaws.com/m?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA123&part=2",
			gone: []string{"deadbeef", "AKIA123"}, kept: []string{"part=2"}},
		{name: "random blob", in: "value AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY end",
			gone: []string{"wJalrXUtnFEMI"}, kept: []string{"value", "end"}},
		{name: "cookie header", in: "Set-Cookie: session=abcdef; Path=/", gone: []string{"abcdef"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := Excerpt(tc.in, 1000, tc.secrets...)
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q still contains %q", out, g)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(out, k) {
					t.Errorf("%q lost %q", out, k)
				}
			}
		})
	}
}

// TestExcerptKeepsNames: the names messages are about must stay readable.
func TestExcerptKeepsNames(t *testing.T) {
	for _, in := range []string{
		"image docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.5 not found",
		"model Qwen/Qwen2-VL-72B-Instruct-GPTQ-Int4 from hf://Qwen/Qwen2-VL-72B-Instruct-GPTQ-Int4",
		"digest sha256:4f8e2a4f0e0f3a1bd0f6c6b4f0a3e3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6",
		"AIMServiceTemplate aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-9f2c is Failed",
		"mounted at /workspace/cache/meta-llama/Llama-3.1-8B-Instruct",
		"Back-off pulling image \"rocm/vllm:latest\"",
	} {
		if out := Excerpt(in, 1000); out != in {
			t.Errorf("changed a harmless message:\n in: %s\nout: %s", in, out)
		}
	}
}

// TestTextDropsLocalSocketEndpoints: a failure that repeats is quoted the same on every attempt, although each
// attempt has its own ephemeral local port; the remote endpoint stays.
func TestTextDropsLocalSocketEndpoints(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{name: "tcp reset",
			in:   `Get "https://r.example/v2/": read tcp 10.244.0.5:39874->203.0.113.5:443: connection reset by peer`,
			want: `Get "https://r.example/v2/": read tcp ->203.0.113.5:443: connection reset by peer`},
		{name: "dns timeout",
			in:   "dial tcp: lookup r.example on 10.96.0.10:53: read udp 10.244.0.5:51234->10.96.0.10:53: i/o timeout",
			want: "dial tcp: lookup r.example on 10.96.0.10:53: read udp ->10.96.0.10:53: i/o timeout"},
		{name: "ipv6 with zone", in: "write tcp6 [fe80::1%eth0]:40112->[2001:db8::5]:443: write: broken pipe",
			want: "write tcp6 ->[2001:db8::5]:443: write: broken pipe"},
		{name: "unspecified local host", in: "read tcp :39874->203.0.113.5:443: i/o timeout",
			want: "read tcp ->203.0.113.5:443: i/o timeout"},
		{name: "every endpoint of a list", in: "tried https://m.example: read tcp 10.0.0.1:1->10.0.0.9:443: EOF; " +
			"https://r.example: read tcp 10.0.0.1:2->203.0.113.5:443: EOF",
			want: "tried https://m.example: read tcp ->10.0.0.9:443: EOF; https://r.example: read tcp ->203.0.113.5:443: EOF"},
		// Without a local endpoint the text is already the same on every attempt.
		{name: "dial error", in: "dial tcp 203.0.113.5:443: connect: connection refused",
			want: "dial tcp 203.0.113.5:443: connect: connection refused"},
		{name: "unix socket", in: "read unix @->/run/containerd.sock: EOF", want: "read unix @->/run/containerd.sock: EOF"},
		{name: "prose", in: "tcp port 8080->8081 mapping; udp 53 open", want: "tcp port 8080->8081 mapping; udp 53 open"},
		// crypto/x509 puts the clock in the error of an expired certificate: new on every attempt.
		{name: "expired certificate", in: `Get "https://r.example/v2/": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-11-29T10:00:03Z is after 2026-11-01T00:00:00Z`,
			want: `Get "https://r.example/v2/": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: the current time is after 2026-11-01T00:00:00Z`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestExcerptFoldsAndCaps(t *testing.T) {
	out := Excerpt("line one\n\tline\x00two\r\n   three", 0)
	if out != "line one line two three" {
		t.Errorf("got %q", out)
	}
	long := strings.Repeat("é", 300) // two bytes each
	out = Excerpt(long, 101)
	if len(out) > 101 || !strings.HasSuffix(out, "...") || !utf8.ValidString(out) {
		t.Errorf("bad cut: %d bytes, valid %v, %q", len(out), utf8.ValidString(out), out[len(out)-6:])
	}
	if got := Excerpt(string([]byte{0xff, 'a', 0xfe}), 0); !utf8.ValidString(got) {
		t.Errorf("invalid UTF-8 kept: %q", got)
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add("Authorization: Basic dXNlcjpwYXNz", "pass")
	f.Add("password=x https://u:p@h/ X-Amz-Signature=1", "")
	f.Add("read tcp 10.244.0.5:39874->203.0.113.5:443: connection reset by peer", "10.244.0.5")
	f.Fuzz(func(t *testing.T, in, secret string) {
		out := Excerpt(in, 128, secret)
		if len(out) > 128 || !utf8.ValidString(out) {
			t.Fatalf("excerpt of %d bytes, valid UTF-8 %v", len(out), utf8.ValidString(out))
		}
		if len(secret) >= 4 && !strings.Contains(Mask, secret) && strings.Contains(out, secret) && !strings.Contains(in, Mask) {
			t.Fatalf("secret %q survives in %q", secret, out)
		}
	})
}

// FuzzTextIsIdempotent: redacting redacted text changes nothing, so a condition message already stored
// (redacted when it was written) need not be redacted again (state.Derive relies on it).
func FuzzTextIsIdempotent(f *testing.F) {
	for _, s := range []string{
		"unauthorized: got header Authorization: Basic dXNlcjpwYXNz for /v2/",
		"token Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc123DEF456ghi rejected",
		`password=hunter2 token: abc.def "secret":"xyz" api_key=k1 AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI`,
		"dial https://bob:pa55word@registry.example.com/v2/ failed",
		"GET https://b.s3.amazonaws.com/m?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA123&part=2",
		"value AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY end",
		"Set-Cookie: session=abcdef; Path=/",
		"AIMClusterServiceTemplate qwen3-32b-mi300x-fp8-latency is not ready: discovery Job discover-qwen-1 is running",
		"lookup r.example on 10.96.0.10:53: read udp 10.244.0.5:51234->10.96.0.10:53: i/o timeout",
		"read tcp6 [fe80::1%eth0]:1->[::1]:2->tcp a:3->b:4 token=tcp c:5->d:6",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		once := Text(in)
		if twice := Text(once); twice != once {
			t.Fatalf("redacting again changed\n%q\nto\n%q", once, twice)
		}
	})
}

// TestOutputQuotesStartAndEnd: long output keeps what ran (its start) and the error (its end), without credentials.
func TestOutputQuotesStartAndEnd(t *testing.T) {
	if got := Output([]byte("short\nresult")); got != `"short\nresult"` {
		t.Errorf("short output = %s", got)
	}
	long := "starting download HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsT " + strings.Repeat("progress ", 100) + "Error: disk full"
	got := Output([]byte(long))
	if !strings.HasPrefix(got, `"starting download`) || !strings.HasSuffix(got, `Error: disk full"`) || !strings.Contains(got, `" ... "`) {
		t.Errorf("long output = %s", got)
	}
	if strings.Contains(got, "hf_aBcDeFgHiJkLmNoPqRsT") {
		t.Errorf("the token is quoted: %s", got)
	}
	if len(got) > OutputLimit+len(`"" ... ""`)+20 {
		t.Errorf("%d bytes quoted, limit %d", len(got), OutputLimit)
	}
}
