package compression

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/value"
)

// stored is a value as aim-apiserver stores it: protobuf with managedFields JSON inside.
var stored = append([]byte("k8s\x00\n\x1d\n\x18aim.eai.amd.com/v1alpha1\x12\nAIMService"),
	[]byte(strings.Repeat(`{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/part-of":{},"f:shard":{}}},"f:spec":{"f:env":{}}}`, 4))...)

// sealed stands for encryption at rest: it must see the compressed bytes and give them back.
type sealed struct{}

func (sealed) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	return append([]byte("k8s:enc:test:"), data...), nil
}

func (sealed) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	out, ok := bytes.CutPrefix(data, []byte("k8s:enc:test:"))
	if !ok {
		return nil, false, errors.New("not sealed")
	}
	return out, false, nil
}

// options is a RESTOptionsGetter with an optional transformer already set, as encryption at rest sets one.
type options struct{ transformer value.Transformer }

func (o options) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{StorageConfig: &storagebackend.ConfigForResource{Config: storagebackend.Config{Transformer: o.transformer}}}, nil
}

func transformerFor(t testing.TB, mode string, inner value.Transformer) value.Transformer {
	t.Helper()
	g, err := Getter(options{inner}, mode)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := g.GetRESTOptions(schema.GroupResource{Resource: "aimservices"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return opts.StorageConfig.Transformer
}

var ctx = context.Background()

func TestValuesAreCompressedAndReadBack(t *testing.T) {
	tr := transformerFor(t, Zstd, nil)
	out, err := tr.TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, zstdMagic) || len(out) >= len(stored)*2/3 {
		t.Errorf("stored %d bytes as %d (%q...)", len(stored), len(out), out[:8])
	}
	back, stale, err := tr.TransformFromStorage(ctx, out, value.DefaultContext(nil))
	if err != nil || stale || !bytes.Equal(back, stored) {
		t.Errorf("read back %q stale=%v: %v", back, stale, err)
	}
}

// TestEitherFormIsReadInEitherMode: values of an earlier release (uncompressed) and compressed ones are read
// with compression on and off; the one not in the mode's form is stale, so the next update rewrites it.
func TestEitherFormIsReadInEitherMode(t *testing.T) {
	compressed, err := transformerFor(t, Zstd, nil).TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode      string
		value     []byte
		wantStale bool
	}{
		{Zstd, stored, true},
		{Zstd, compressed, false},
		{None, stored, false},
		{None, compressed, true},
		{Zstd, []byte(`{"kind":"AIMService"}`), true},
	} {
		back, stale, err := transformerFor(t, tc.mode, nil).TransformFromStorage(ctx, tc.value, value.DefaultContext(nil))
		want := stored
		if tc.value[0] == '{' {
			want = tc.value
		}
		if err != nil || stale != tc.wantStale || !bytes.Equal(back, want) {
			t.Errorf("mode %s reading %q: %q stale=%v (want %v): %v", tc.mode, tc.value[:4], back[:min(len(back), 8)], stale, tc.wantStale, err)
		}
	}
	out, err := transformerFor(t, None, nil).TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil || !bytes.Equal(out, stored) {
		t.Errorf("mode none wrote %q: %v", out, err)
	}
}

func TestEncryptionWrapsTheCompressedValue(t *testing.T) {
	tr := transformerFor(t, Zstd, sealed{})
	out, err := tr.TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil {
		t.Fatal(err)
	}
	inner, ok := bytes.CutPrefix(out, []byte("k8s:enc:test:"))
	if !ok || !bytes.HasPrefix(inner, zstdMagic) {
		t.Fatalf("stored %q, want the sealed compressed value", out[:min(len(out), 20)])
	}
	back, _, err := tr.TransformFromStorage(ctx, out, value.DefaultContext(nil))
	if err != nil || !bytes.Equal(back, stored) {
		t.Errorf("read back %q: %v", back, err)
	}
	if _, _, err := tr.TransformFromStorage(ctx, stored, value.DefaultContext(nil)); err == nil {
		t.Error("the inner transformer's error was swallowed")
	}
}

func TestBrokenValuesAreErrors(t *testing.T) {
	tr := transformerFor(t, Zstd, nil)
	out, err := tr.TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, broken := range [][]byte{out[:len(out)/2], append(append([]byte{}, zstdMagic...), 0xff, 0xff, 0xff)} {
		if _, _, err := tr.TransformFromStorage(ctx, broken, value.DefaultContext(nil)); err == nil || !strings.Contains(err.Error(), "decompressing") {
			t.Errorf("broken value %q: %v", broken, err)
		}
	}
	if _, err := Getter(options{}, "gzip"); err == nil {
		t.Error("an unknown mode was accepted")
	}
}

func FuzzTransformFromStorage(f *testing.F) {
	tr := transformerFor(f, Zstd, nil)
	out, err := tr.TransformToStorage(ctx, stored, value.DefaultContext(nil))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(out)
	f.Add(stored)
	f.Fuzz(func(t *testing.T, data []byte) {
		back, _, err := tr.TransformFromStorage(ctx, data, value.DefaultContext(nil))
		if err == nil && !bytes.HasPrefix(data, zstdMagic) && !bytes.Equal(back, data) {
			t.Errorf("an uncompressed value changed: %q -> %q", data, back)
		}
	})
}
