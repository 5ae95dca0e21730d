// Package compression stores AIM objects in etcd compressed with zstd, as a value transformer between the
// storage codec and whatever else transforms values (encryption at rest wraps the compressed bytes).
//
// Half of a stored AIM object is its managedFields, JSON inside the protobuf encoding, which protobuf cannot
// shrink; zstd roughly halves the whole value. Reads recognise compressed values by the zstd frame magic
// (never the first bytes of protobuf, "k8s\x00", or JSON, "{"), so values written uncompressed, by an earlier
// release or with compression off, stay readable, and compressed ones stay readable with compression off.
// A value in the other form is reported stale, so an update rewrites it even when the object did not change.
package compression

import (
	"bytes"
	"context"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
)

// Modes of --storage-compression.
const (
	Zstd = "zstd"
	None = "none"
)

// Modes lists the accepted values, for flag help and validation.
var Modes = []string{Zstd, None}

// maxDecoded bounds what one value may expand to: etcd refuses requests over 1.5 MiB by default, and an
// object decompressing to more than this is not one aim-apiserver wrote.
const maxDecoded = 32 << 20

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Validate checks a --storage-compression value.
func Validate(mode string) error {
	if mode != Zstd && mode != None {
		return fmt.Errorf("--storage-compression %q: want one of %v", mode, Modes)
	}
	return nil
}

// Getter hands out the storage of getter with values compressed in mode (Zstd or None); compressed values
// are read in either mode.
func Getter(getter generic.RESTOptionsGetter, mode string) (generic.RESTOptionsGetter, error) {
	if err := Validate(mode); err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxDecoded))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	t := &transformer{dec: dec}
	if mode == Zstd {
		// The fastest level: values are about a kilobyte, and writes wait for it.
		if t.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
	}
	return &restOptionsGetter{RESTOptionsGetter: getter, t: t}, nil
}

type restOptionsGetter struct {
	generic.RESTOptionsGetter
	t *transformer
}

func (g *restOptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.RESTOptionsGetter.GetRESTOptions(resource, example)
	if err != nil || opts.StorageConfig == nil {
		return opts, err
	}
	inner := opts.StorageConfig.Transformer
	if inner == nil {
		// What the etcd store uses when nothing transforms values.
		inner = identity.NewEncryptCheckTransformer()
	}
	t := *g.t
	t.inner = inner
	opts.StorageConfig.Transformer = &t
	return opts, nil
}

// transformer compresses before, and decompresses after, the inner transformer.
type transformer struct {
	inner value.Transformer
	// enc is nil when values are written uncompressed.
	enc *zstd.Encoder
	dec *zstd.Decoder
}

var _ value.Transformer = &transformer{}

func (t *transformer) TransformToStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, error) {
	if t.enc != nil {
		data = t.enc.EncodeAll(data, make([]byte, 0, len(data)/2))
	}
	return t.inner.TransformToStorage(ctx, data, dataCtx)
}

func (t *transformer) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	out, stale, err := t.inner.TransformFromStorage(ctx, data, dataCtx)
	if err != nil {
		return nil, stale, err
	}
	compressed := bytes.HasPrefix(out, zstdMagic)
	if compressed {
		if out, err = t.dec.DecodeAll(out, nil); err != nil {
			return nil, false, fmt.Errorf("decompressing a stored object: %w", err)
		}
	}
	return out, stale || compressed != (t.enc != nil), nil
}
