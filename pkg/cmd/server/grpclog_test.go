package server

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// TestETCDGRPCLoggerDropsOnlyCancelledDials: a dial the client cancelled is not a warning; a dial that failed
// for another reason, and errors, still are.
func TestETCDGRPCLoggerDropsOnlyCancelledDials(t *testing.T) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	var buf bytes.Buffer
	klog.SetOutput(&buf)
	t.Cleanup(func() { _ = fs.Set("logtostderr", "true") })

	l := etcdGRPCLogger{}
	l.Warningln(`[core] [Channel #6 SubChannel #9] grpc: addrConn.createTransport failed to connect to {Addr: "127.0.0.1:34949"}. Err: connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:34949: operation was canceled"`)
	// Closed by the client while it wrote the preface (seen once in TestImageLocalMode's start-up log).
	l.Warning(`[core] [Channel #17 SubChannel #18] grpc: addrConn.createTransport failed to connect to {Addr: "127.0.0.1:44283", ServerName: "127.0.0.1:44283", }. Err: connection error: desc = "transport: failed to write client preface: write tcp 127.0.0.1:45102->127.0.0.1:44283: use of closed network connection"`)
	l.Warningf("%s", `grpc: addrConn.createTransport failed to connect to {Addr: "127.0.0.1:2379"}. Err: connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:2379: connect: connection refused"`)
	l.Errorf("grpc: %s", "broken")
	klog.Flush()
	out := buf.String()
	if strings.Contains(out, "operation was canceled") || strings.Contains(out, "client preface") {
		t.Errorf("a cancelled dial was logged:\n%s", out)
	}
	for _, want := range []string{"connection refused", "grpc: broken"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q was not logged:\n%s", want, out)
		}
	}
}
