package persist

import (
	"bytes"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// putValues is a checkpoint's channel values as a Put hands them to its
// transaction. Put encodes the values that changed before it queues the
// write, so that a queued write holds bytes the writer can count (see
// writer.maxBytes) instead of live values, and so that a list the engine
// says only grew is encoded as the elements added: a superstep costs what
// it changed, not the length of the lists it appended to.
type putValues struct {
	// pre holds the values encoded before queueing, one per channel; a
	// superstep changes a few channels, which a list finds faster than a
	// map and with one small allocation instead of a map's group. preAt
	// indexes a long one (see preOf).
	pre   []preEntry
	preAt map[string]int
	vals  map[string]any // the other values, encoded only if needed
	size  int            // bytes of the encodings held
	late  int            // bytes full encoded in the transaction
	prep  *preparedPut   // the record worked out before queueing, or nil
}

// preValue is one channel's value encoded before queueing: whole, or,
// when the engine recorded that the channel's last update only appended
// to its value at version from, as the suffix ",e1,e2" those elements add
// to that list's encoding (the value itself is then kept in vals, for the
// case where it must be stored whole after all).
type preEntry struct {
	channel string
	preValue
}

// preIndexed is the length from which pre is looked up through preAt.
const preIndexed = 8

// preOf returns channel's value encoded before queueing, if it was.
func (pv *putValues) preOf(channel string) (preValue, bool) {
	if pv.preAt != nil {
		i, ok := pv.preAt[channel]
		if !ok {
			return preValue{}, false
		}
		return pv.pre[i].preValue, true
	}
	for i := range pv.pre {
		if pv.pre[i].channel == channel {
			return pv.pre[i].preValue, true
		}
	}
	return preValue{}, false
}

type preValue struct {
	enc    []byte // the whole value's JSON, or nil
	has    bool   // false: the channel has a version but no value
	from   engine.Version
	suffix []byte
}

// encodePut encodes cp's values for the channels in changed (the engine's
// newVersions): the others are most likely unchanged since the parent and
// are kept as values, encoded in the transaction only if they did change.
// nil changed encodes nothing ahead.
func encodePut(cp *engine.Checkpoint, changed map[string]engine.Version) (*putValues, error) {
	pv := &putValues{vals: make(map[string]any, len(cp.ChannelValues))}
	for ch, v := range cp.ChannelValues {
		pv.vals[ch] = v
	}
	if len(changed) > 0 {
		pv.pre = make([]preEntry, 0, len(changed))
	}
	for ch := range changed {
		if _, ok := cp.ChannelVersions[ch]; !ok {
			continue
		}
		val, has := cp.ChannelValues[ch]
		p := preValue{has: has}
		if a, ok := cp.Appends[ch]; ok && has && a.Len > 0 {
			if tail, ok := cp.AppendedTail(ch, a.From); ok && len(tail) > 0 {
				enc, err := engine.EncodeValue(tail)
				if err != nil {
					return nil, fmt.Errorf("%w: channel %q: %w", ErrInvalidCheckpoint, ch, err)
				}
				enc[0] = ',' // "[e1,e2]" → ",e1,e2"
				p.from, p.suffix = a.From, enc[:len(enc)-1]
				pv.pre = append(pv.pre, preEntry{ch, p})
				pv.size += len(p.suffix)
				continue
			}
		}
		if has {
			enc, err := engine.EncodeValue(val)
			if err != nil {
				return nil, fmt.Errorf("%w: channel %q: %w", ErrInvalidCheckpoint, ch, err)
			}
			p.enc = enc
			pv.size += len(enc)
		}
		pv.pre = append(pv.pre, preEntry{ch, p})
		delete(pv.vals, ch)
	}
	if len(pv.pre) > preIndexed {
		pv.preAt = make(map[string]int, len(pv.pre))
		for i, e := range pv.pre {
			pv.preAt[e.channel] = i
		}
	}
	return pv, nil
}

// full returns channel's whole encoding, encoding it now if Put did not.
func (pv *putValues) full(channel string) ([]byte, bool, error) {
	if p, ok := pv.preOf(channel); ok && p.suffix == nil {
		return p.enc, p.has, nil
	}
	val, has := pv.vals[channel]
	if !has {
		return nil, false, nil
	}
	enc, err := engine.EncodeValue(val)
	if err != nil {
		return nil, false, fmt.Errorf("%w: channel %q: %w", ErrInvalidCheckpoint, channel, err)
	}
	pv.late += len(enc)
	return enc, true, nil
}

// appended returns the suffix the engine recorded for channel over its
// value at version from.
func (pv *putValues) appended(channel string, from engine.Version) ([]byte, bool) {
	p, ok := pv.preOf(channel)
	if !ok || p.suffix == nil || p.from != from {
		return nil, false
	}
	return p.suffix, true
}

// accounted reports whether the engine said channel's value only grew, so
// that comparing it with the previous value byte by byte is pointless.
func (pv *putValues) accounted(channel string) bool {
	p, _ := pv.preOf(channel)
	return p.suffix != nil
}

// prevChain returns what the next append to the value at ref needs to know:
// whether it is a list with a value, and its chain's sizes. It reads only
// that blob's header, never the chain.
func (b *nsBuckets) prevChain(channel string, ref chanRef) (chainSize, bool, error) {
	if p, ok := b.cache.value(b.thread, b.ns, channel, ref); ok {
		return p.size, p.has, nil
	}
	data, err := b.blobs.Get(blobKey(channel, ref.Version, ref.Seq))
	if data == nil || err != nil {
		return chainSize{}, false, err
	}
	h, err := parseBlob(data)
	if err != nil {
		return chainSize{}, false, err
	}
	if h.kind == blobEmpty {
		return chainSize{}, false, nil
	}
	return h.size, true, nil
}

// putBlob stores channel's value at version ver and returns where it went.
// prev is the parent's value of the channel, if it had one: a list that
// only grew since then is stored as the added elements (see chainSize).
//
// Blobs are never overwritten. A version can be taken already, by a
// checkpoint on another branch of a fork that gave the channel the same
// next version: an equal value is shared, a different one is stored under
// a fresh sequence number. free says the caller found no value stored at
// ver (records.HasVersion), so the version is not taken.
func (b *nsBuckets) putBlob(channel string, ver int64, pv *putValues, prev *chanRef, free bool) (cachedValue, error) {
	out := cachedValue{ref: chanRef{Version: ver}}
	// put stores the blob: a version not taken yet is known to be absent.
	put := b.blobs.PutNew
	if !free && b.blobs.Has(blobKey(channel, ver, 0)) {
		put = b.blobs.Put
		enc, has, err := pv.full(channel)
		if err != nil {
			return cachedValue{}, err
		}
		old, err := readBlob(b.blobs, channel, out.ref)
		if err != nil {
			return cachedValue{}, err
		}
		if old.has == has && bytes.Equal(old.enc, enc) {
			out.enc, out.has, out.size = enc, has, old.size
			return out, nil
		}
		if out.ref.Seq, err = b.blobs.NextSequence(); err != nil {
			return cachedValue{}, err
		}
	}
	if prev != nil {
		if suffix, ok := pv.appended(channel, prev.Version); ok {
			psize, phas, err := b.prevChain(channel, *prev)
			if err != nil {
				return cachedValue{}, err
			}
			if sz, ok := psize.extend(len(suffix)); ok && phas {
				out.has, out.size = true, sz
				return out, put(blobKey(channel, ver, out.ref.Seq), encodeAppendBlob(*prev, sz, suffix))
			}
		}
	}
	enc, has, err := pv.full(channel)
	if err != nil {
		return cachedValue{}, err
	}
	out.enc, out.has, out.size = enc, has, chainSize{base: len(enc)}
	data := encodeFullBlob(enc, has)
	if has && prev != nil && !pv.accounted(channel) {
		if d, sz, ok, err := b.appendByBytes(channel, *prev, enc); err != nil {
			return cachedValue{}, err
		} else if ok {
			data, out.size = d, sz
		}
	}
	return out, put(blobKey(channel, out.ref.Version, out.ref.Seq), data)
}

// appendByBytes finds out by comparing encodings whether the list enc only
// grew since prev, for values the engine did not account for (imports,
// lists a generic reducer such as add_messages made), and returns its
// append blob if storing it so is worth it.
func (b *nsBuckets) appendByBytes(channel string, prev chanRef, enc []byte) ([]byte, chainSize, bool, error) {
	if len(enc) == 0 || enc[0] != '[' {
		return nil, chainSize{}, false, nil
	}
	p, ok := b.cache.value(b.thread, b.ns, channel, prev)
	if !ok || p.enc == nil {
		bv, err := readBlob(b.blobs, channel, prev)
		if err != nil {
			return nil, chainSize{}, false, err
		}
		p = cachedValue{enc: bv.enc, has: bv.found && bv.has, size: bv.size}
	}
	if !p.has {
		return nil, chainSize{}, false, nil
	}
	suffix, ok := appendSuffix(p.enc, enc)
	if !ok {
		return nil, chainSize{}, false, nil
	}
	sz, ok := p.size.extend(len(suffix))
	if !ok {
		return nil, chainSize{}, false, nil
	}
	return encodeAppendBlob(prev, sz, suffix), sz, true, nil
}

// recordOverhead estimates the bytes a checkpoint record spends per
// channel version and versions-seen entry, for the writer's bound.
const recordOverhead = 32

// size estimates the bytes of the stored metadata.
func (m mdRecord) size() int {
	n := 64 + len(m.Source)
	for k, v := range m.Parents {
		n += len(k) + len(v)
	}
	for k, v := range m.Extra {
		n += len(k) + len(v)
	}
	return n
}
