//! The stored form of an event's kind: a tag byte and up to 13 bytes of payload, so that an
//! [`Event`](super::events::Event) (a 2-byte [`Step`](super::steps::Step) beside it) is 16
//! bytes instead of 24.
//!
//! Rust lays the kinds out by alignment: `EventKind` wraps two enums whose own tags it cannot
//! share, and `Annotation::Trace` nests a third, so the typed enum is 20 bytes however narrow
//! its fields. A recorded run holds millions of events (12.7 M for the 1M-operation mixed
//! workload), and faulting in the log's pages is most of what recording costs; so the log
//! stores this byte form and `Event::kind` decodes it back. The typed enums stay the API: every
//! reader matches on them as before.
//!
//! One table makes the codec: [`event_kinds!`] declares `Mutation`, `Annotation` and
//! `Tracepoint` (in `events.rs`, one row a variant, its fields in order) and from the same rows
//! numbers the variants (the tag: mutations from 0, annotations from 64, tracepoints from 128,
//! each in declaration order), writes a kind's fields one after another behind its tag and
//! reads them back in that order. A fieldless enum a kind holds is declared with
//! [`coded_enum!`]: its `ALL` lists the variants in declaration order and a variant is stored
//! as its index there. A new variant, field or function is one row; nothing else lists them.
//!
//! Tags and indices are those of the build: nothing keeps these bytes beyond the run that
//! made them (the app's worker sends a run's events through serde as `{step, kind}`; saved
//! work and share links hold scenario text and positions), so a new row may renumber them.
//!
//! Fields are little-endian bit fields after the tag, unaligned. The encoding is canonical
//! (unused bytes 0, `None` one way), so two events are equal exactly when their bytes are.
//!
//! Only `Annotation::Claimed` does not fit at full width (19 bytes): its `pageblocks`, `free`
//! and `alike` are stored as u16 (`pageblocks: u32 as u16` in the table; a value that does not
//! fit panics). The kernel bounds them far lower: `try_to_claim_block` (v7.1.5
//! mm/page_alloc.c:2284-2290) takes a whole block of `current_order >= pageblock_order`, at
//! most the `2^(MAX_PAGE_ORDER - pageblock_order)` = 2 pageblocks of an order-10 block (the
//! model's `free` = 1024 then), and otherwise counts `free_pages` and `movable_pages` within
//! one pageblock (`prep_move_freepages_block`, :1969-1977,
//! `pageblock_start_pfn`..`pageblock_end_pfn`: 512 pages). A variant whose fields exceed the
//! 13 bytes does not compile; `Event::new` checks the round trip in debug builds.

use super::types::MigrateType;

/// Bytes of a stored kind: the tag and the payload.
pub(super) const PACKED_BYTES: usize = 14;

/// A kind's stored bytes.
pub(super) type Packed = [u8; PACKED_BYTES];

/// The first tag of each enum's variants; tracepoints take the rest up to 255.
pub(super) const MUTATION_TAGS: u8 = 0;
pub(super) const ANNOTATION_TAGS: u8 = 64;
pub(super) const TRACEPOINT_TAGS: u8 = 128;

/// `Option<MigrateType>`'s `None`.
const NO_MT: u8 = 0xff;

/// Writes fields one after another behind the tag, as bits of one integer: built in registers
/// and stored once (byte stores read back as wider words stall store forwarding).
pub(super) struct W {
    v: u128,
    bits: u32,
}

impl W {
    #[inline(always)]
    pub(super) fn tag(t: u8) -> W {
        W {
            v: t as u128,
            bits: 8,
        }
    }
    #[inline(always)]
    pub(super) fn field(self, x: u32, width: u32) -> W {
        W {
            v: self.v | (x as u128) << self.bits,
            bits: self.bits + width,
        }
    }
    #[inline(always)]
    pub(super) fn finish(self) -> Packed {
        assert!(
            self.bits <= 8 * PACKED_BYTES as u32,
            "an event kind over 14 bytes"
        );
        let b = self.v.to_le_bytes();
        std::array::from_fn(|i| b[i])
    }
}

/// Reads the fields back in the order [`W`] wrote them.
pub(super) struct R {
    v: u128,
}

impl R {
    /// The tag of `b` and a reader of its fields.
    #[inline(always)]
    pub(super) fn new(b: &Packed) -> (u8, R) {
        let mut wide = [0; 16];
        wide[..PACKED_BYTES].copy_from_slice(b);
        (
            b[0],
            R {
                v: u128::from_le_bytes(wide) >> 8,
            },
        )
    }
    #[inline(always)]
    pub(super) fn field(&mut self, width: u32) -> u32 {
        let x = (self.v & ((1u128 << width) - 1)) as u32;
        self.v >>= width;
        x
    }
}

/// A type an event kind's field has: its width and how it is written and read back.
pub(super) trait Field: Sized {
    /// Bits the field takes.
    const BITS: u32;
    fn put(self, w: W) -> W;
    fn get(r: &mut R) -> Self;
}

impl Field for u8 {
    const BITS: u32 = 8;
    #[inline(always)]
    fn put(self, w: W) -> W {
        w.field(self as u32, 8)
    }
    #[inline(always)]
    fn get(r: &mut R) -> u8 {
        r.field(8) as u8
    }
}

impl Field for i8 {
    const BITS: u32 = 8;
    #[inline(always)]
    fn put(self, w: W) -> W {
        (self as u8).put(w)
    }
    #[inline(always)]
    fn get(r: &mut R) -> i8 {
        u8::get(r) as i8
    }
}

impl Field for bool {
    const BITS: u32 = 8;
    #[inline(always)]
    fn put(self, w: W) -> W {
        (self as u8).put(w)
    }
    #[inline(always)]
    fn get(r: &mut R) -> bool {
        u8::get(r) != 0
    }
}

impl Field for u16 {
    const BITS: u32 = 16;
    #[inline(always)]
    fn put(self, w: W) -> W {
        w.field(self as u32, 16)
    }
    #[inline(always)]
    fn get(r: &mut R) -> u16 {
        r.field(16) as u16
    }
}

impl Field for u32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn put(self, w: W) -> W {
        w.field(self, 32)
    }
    #[inline(always)]
    fn get(r: &mut R) -> u32 {
        r.field(32)
    }
}

impl Field for i32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn put(self, w: W) -> W {
        w.field(self as u32, 32)
    }
    #[inline(always)]
    fn get(r: &mut R) -> i32 {
        r.field(32) as i32
    }
}

/// A flag byte, then the value (0 when `None`).
impl Field for Option<u32> {
    const BITS: u32 = 40;
    #[inline(always)]
    fn put(self, w: W) -> W {
        self.unwrap_or(0).put(self.is_some().put(w))
    }
    #[inline(always)]
    fn get(r: &mut R) -> Option<u32> {
        let some = bool::get(r);
        let v = u32::get(r);
        some.then_some(v)
    }
}

impl Field for MigrateType {
    const BITS: u32 = 8;
    #[inline(always)]
    fn put(self, w: W) -> W {
        (self as u8).put(w)
    }
    #[inline(always)]
    fn get(r: &mut R) -> MigrateType {
        MigrateType::from_idx(u8::get(r) as usize)
    }
}

impl Field for Option<MigrateType> {
    const BITS: u32 = 8;
    #[inline(always)]
    fn put(self, w: W) -> W {
        self.map_or(NO_MT, |m| m as u8).put(w)
    }
    #[inline(always)]
    fn get(r: &mut R) -> Option<MigrateType> {
        match u8::get(r) {
            NO_MT => None,
            m => Some(MigrateType::from_idx(m as usize)),
        }
    }
}

/// A fieldless enum whose variant a kind stores as its index in `ALL` (declaration order):
/// the enum, `ALL`, and its [`Field`] form.
macro_rules! coded_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $( $(#[$vattr:meta])* $v:ident ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub enum $name {
            $( $(#[$vattr])* $v ),*
        }

        impl $name {
            /// Every variant in declaration order (a stored variant is its index here).
            pub const ALL: [$name; [$(stringify!($v)),*].len()] = [$($name::$v),*];
        }

        const _: () = assert!($name::ALL.len() <= 256, "a coded enum's index is a byte");

        impl $crate::mm::packed::Field for $name {
            const BITS: u32 = 8;
            #[inline(always)]
            fn put(self, w: $crate::mm::packed::W) -> $crate::mm::packed::W {
                <u8 as $crate::mm::packed::Field>::put(self as u8, w)
            }
            #[inline(always)]
            fn get(r: &mut $crate::mm::packed::R) -> $name {
                $name::ALL[<u8 as $crate::mm::packed::Field>::get(r) as usize]
            }
        }
    };
}
pub(crate) use coded_enum;

/// One field written: `$t` as itself, or narrowed to `$s` (a value that does not fit panics,
/// naming the field).
macro_rules! put_field {
    ($w:expr, $v:expr, $t:ty, $what:expr) => {
        <$t as $crate::mm::packed::Field>::put($v, $w)
    };
    ($w:expr, $v:expr, $t:ty, $s:ty, $what:expr) => {
        <$s as $crate::mm::packed::Field>::put(
            <$s>::try_from($v)
                .unwrap_or_else(|_| panic!("{} {} exceeds {}", $what, $v, stringify!($s))),
            $w,
        )
    };
}
pub(crate) use put_field;

/// One field read back, widened from `$s` when it was narrowed.
macro_rules! get_field {
    ($r:expr, $t:ty) => {
        <$t as $crate::mm::packed::Field>::get($r)
    };
    ($r:expr, $t:ty, $s:ty) => {
        <$t>::from(<$s as $crate::mm::packed::Field>::get($r))
    };
}
pub(crate) use get_field;

/// The bits one field is stored in.
macro_rules! field_bits {
    ($t:ty) => {
        <$t as $crate::mm::packed::Field>::BITS
    };
    ($t:ty, $s:ty) => {
        <$s as $crate::mm::packed::Field>::BITS
    };
}
pub(crate) use field_bits;

/// The codec of one kind enum: `tags::Variant` (its tag, `$first` + declaration index), `pack`
/// (the tag, then each field in order) and `unpack` (the fields in the same order).
macro_rules! kind_codec {
    (
        $name:ident, $tags:ident, $first:expr, $end:expr,
        [ $( $v:ident { $( $f:ident : $t:ty $(as $s:ty)? ),* } ),* ]
        $(, nests $nv:ident)?
    ) => {
        // The tags are named after the variants (`mutation_tag::FreeListAdd`).
        #[allow(non_upper_case_globals, dead_code, clippy::enum_variant_names)]
        pub(super) mod $tags {
            #[repr(u8)]
            enum Index {
                $($v),*
            }
            $( pub(in crate::mm) const $v: u8 = $first + Index::$v as u8; )*
            /// One past the last tag.
            pub(in crate::mm) const END: u8 = $first + [$(stringify!($v)),*].len() as u8;
        }

        const _: () = assert!(
            $tags::END as usize <= $end,
            concat!(stringify!($name), " has more variants than its tags")
        );
        $(
            const _: () = assert!(
                0 $( + $crate::mm::packed::field_bits!($t $(, $s)?) )*
                    <= 8 * ($crate::mm::packed::PACKED_BYTES as u32 - 1),
                concat!(stringify!($name), "::", stringify!($v), " is over 13 bytes")
            );
        )*

        impl $name {
            /// The tag and the fields.
            #[inline(always)]
            fn pack(self) -> $crate::mm::packed::W {
                match self {
                    $(
                        $name::$v { $($f),* } => {
                            let w = $crate::mm::packed::W::tag($tags::$v);
                            $(
                                let w = $crate::mm::packed::put_field!(
                                    w, $f, $t $(, $s)?,
                                    concat!(stringify!($name), "::", stringify!($v), " ", stringify!($f))
                                );
                            )*
                            w
                        }
                    )*
                    $( $name::$nv(inner) => inner.pack(), )?
                }
            }

            /// The variant of tag `tag`, its fields read from `r`.
            #[inline(always)]
            fn unpack(tag: u8, r: &mut $crate::mm::packed::R) -> $name {
                match tag {
                    $(
                        $tags::$v => $name::$v {
                            $( $f: $crate::mm::packed::get_field!(r, $t $(, $s)?) ),*
                        },
                    )*
                    t => unreachable!("event tag {t} has no variant"),
                }
            }
        }
    };
}
pub(crate) use kind_codec;

/// The three kind enums from one table, with their codec (see the module doc): `Mutation`,
/// `Annotation` (which gets the variant `Trace(Tracepoint)`) and `Tracepoint`, and
/// `encode`/`decode` of an [`EventKind`](super::events::EventKind) over the three.
macro_rules! event_kinds {
    (
        $(#[$m_attr:meta])*
        pub enum Mutation {
            $( $(#[$m_vattr:meta])* $m_v:ident {
                $( $(#[$m_fattr:meta])* $m_f:ident : $m_t:ty $(as $m_s:ty)? ),* $(,)?
            } ),* $(,)?
        }
        $(#[$a_attr:meta])*
        pub enum Annotation {
            $( $(#[$a_vattr:meta])* $a_v:ident {
                $( $(#[$a_fattr:meta])* $a_f:ident : $a_t:ty $(as $a_s:ty)? ),* $(,)?
            } ),* $(,)?
        }
        $(#[$t_attr:meta])*
        pub enum Tracepoint {
            $( $(#[$t_vattr:meta])* $t_v:ident {
                $( $(#[$t_fattr:meta])* $t_f:ident : $t_t:ty $(as $t_s:ty)? ),* $(,)?
            } ),* $(,)?
        }
    ) => {
        $(#[$m_attr])*
        pub enum Mutation {
            $( $(#[$m_vattr])* $m_v { $( $(#[$m_fattr])* $m_f: $m_t ),* } ),*
        }

        $(#[$a_attr])*
        pub enum Annotation {
            $( $(#[$a_vattr])* $a_v { $( $(#[$a_fattr])* $a_f: $a_t ),* }, )*
            /// A kernel tracepoint, as the kernel would have emitted it here.
            Trace(Tracepoint),
        }

        $(#[$t_attr])*
        pub enum Tracepoint {
            $( $(#[$t_vattr])* $t_v { $( $(#[$t_fattr])* $t_f: $t_t ),* } ),*
        }

        $crate::mm::packed::kind_codec!(
            Mutation, mutation_tag, $crate::mm::packed::MUTATION_TAGS,
            $crate::mm::packed::ANNOTATION_TAGS as usize,
            [ $( $m_v { $( $m_f : $m_t $(as $m_s)? ),* } ),* ]
        );
        $crate::mm::packed::kind_codec!(
            Annotation, annotation_tag, $crate::mm::packed::ANNOTATION_TAGS,
            $crate::mm::packed::TRACEPOINT_TAGS as usize,
            [ $( $a_v { $( $a_f : $a_t $(as $a_s)? ),* } ),* ],
            nests Trace
        );
        $crate::mm::packed::kind_codec!(
            Tracepoint, tracepoint_tag, $crate::mm::packed::TRACEPOINT_TAGS, 256,
            [ $( $t_v { $( $t_f : $t_t $(as $t_s)? ),* } ),* ]
        );

        /// The stored bytes of `kind`.
        #[inline(always)]
        fn encode(kind: EventKind) -> $crate::mm::packed::Packed {
            match kind {
                EventKind::Mutation(m) => m.pack(),
                EventKind::Annotation(a) => a.pack(),
            }
            .finish()
        }

        /// The kind `encode` stored in `b`.
        #[inline]
        fn decode(b: &$crate::mm::packed::Packed) -> EventKind {
            let (tag, mut r) = $crate::mm::packed::R::new(b);
            if tag < $crate::mm::packed::ANNOTATION_TAGS {
                Mutation::unpack(tag, &mut r).into()
            } else if tag < $crate::mm::packed::TRACEPOINT_TAGS {
                Annotation::unpack(tag, &mut r).into()
            } else {
                Tracepoint::unpack(tag, &mut r).into()
            }
        }
    };
}
pub(crate) use event_kinds;
