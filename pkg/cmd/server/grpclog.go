package server

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/grpclog"
	"k8s.io/klog/v2"
)

// etcdGRPCLogger forwards the etcd client's gRPC logs to klog as k8s.io/apiserver's own wrapper does (info at
// -v=5, warnings and errors as such), except one warning: a connection attempt that the client itself
// cancelled. k8s.io/apiserver opens etcd clients for its storage and health checks and closes some of them while
// they still dial, and gRPC reports each as "createTransport failed ... operation was canceled" (or, closed
// while it wrote the HTTP/2 preface, "... use of closed network connection"): a dozen warnings on every start
// that say nothing about etcd. A dial that fails for any other reason is still logged.
type etcdGRPCLogger struct{}

// installETCDGRPCLogger must run before the first etcd client is made (gRPC reads its logger unsynchronized).
func installETCDGRPCLogger() { grpclog.SetLoggerV2(etcdGRPCLogger{}) }

const grpcLogDepth = 4

func cancelledDial(msg string) bool {
	return strings.Contains(msg, "createTransport failed") && (strings.Contains(msg, "operation was canceled") ||
		strings.Contains(msg, "context canceled") || strings.Contains(msg, "use of closed network connection"))
}

func (etcdGRPCLogger) Info(args ...any) {
	if v := klog.V(5); v.Enabled() {
		v.InfoSDepth(grpcLogDepth, fmt.Sprint(args...))
	}
}
func (l etcdGRPCLogger) Infoln(args ...any) { l.Info(fmt.Sprintln(args...)) }
func (l etcdGRPCLogger) Infof(format string, args ...any) {
	l.Info(fmt.Sprintf(format, args...))
}
func (etcdGRPCLogger) Warning(args ...any) {
	if msg := fmt.Sprint(args...); !cancelledDial(msg) {
		klog.WarningDepth(grpcLogDepth, msg)
	}
}
func (l etcdGRPCLogger) Warningln(args ...any) { l.Warning(fmt.Sprintln(args...)) }
func (l etcdGRPCLogger) Warningf(format string, args ...any) {
	l.Warning(fmt.Sprintf(format, args...))
}
func (etcdGRPCLogger) Error(args ...any)     { klog.ErrorDepth(grpcLogDepth, fmt.Sprint(args...)) }
func (l etcdGRPCLogger) Errorln(args ...any) { l.Error(fmt.Sprintln(args...)) }
func (l etcdGRPCLogger) Errorf(format string, args ...any) {
	l.Error(fmt.Sprintf(format, args...))
}
func (etcdGRPCLogger) Fatal(args ...any)     { klog.FatalDepth(grpcLogDepth, fmt.Sprint(args...)) }
func (l etcdGRPCLogger) Fatalln(args ...any) { l.Fatal(fmt.Sprintln(args...)) }
func (l etcdGRPCLogger) Fatalf(format string, args ...any) {
	l.Fatal(fmt.Sprintf(format, args...))
}
func (etcdGRPCLogger) V(level int) bool { return klog.V(klog.Level(level)).Enabled() }
