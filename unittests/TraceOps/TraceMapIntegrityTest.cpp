//===- TraceMapIntegrityTest.cpp - the map's content digest and bounds ----===//
//
// Issue 21: a map edited after wsn-cc wrote it, or holding values no build can
// produce, is refused where it is read, naming the map file and the entry
// (spec/trace-map.md, "Reading rules" and "Content digest").
//
//===----------------------------------------------------------------------===//
#include "ModuleHash.h"
#include "TraceMap.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace wsn;

namespace {

TraceMap::Var global(StringRef Name, uint32_t Size) {
  TraceMap::Var V;
  V.Name = Name.str();
  V.Size = Size;
  V.CType = Size == 1 ? "uint8_t" : "";
  return V;
}

/// A small AVR map, as wsn-cc writes it (256-byte ring of 64-byte segments).
TraceMap smallMap() {
  TraceMap M;
  M.Target = "avr";
  M.ModuleHash = 0x12345678;
  M.BufSize = 256;
  M.SegSize = 64;
  M.Functions.push_back({1, "main", "app.c", 10});
  M.Sites.push_back({2, "skip", "main", "app.c", 12, 3});
  TraceMap::Anchor A;
  A.Id = 1;
  A.Function = "main";
  A.Vars = {global("counter", 2), global("__wsn_io_0x3b", 1)};
  M.Anchors.push_back(A);
  TraceMap::Invariant I;
  I.Id = 1;
  I.Function = "wsn_invariant_ok";
  I.Inputs = {global("counter", 2)};
  M.Invariants.push_back(I);
  TraceMap::Effect E;
  E.Site = 2;
  E.Callee = "ext";
  E.ReturnSize = 2;
  E.Writes = {global("flag", 1)};
  M.Effects.push_back(E);
  return M;
}

std::string parseError(StringRef Text,
                       TraceMap::Digest Check = TraceMap::Digest::Require) {
  auto R = TraceMap::parseJSON(Text, "fw.wmap", Check);
  if (R)
    return "<no error>";
  return toString(R.takeError());
}

/// Text with From replaced by To (once), and the digest line recomputed when Reseal:
/// the map another writer could have written.
std::string edit(std::string Text, StringRef From, StringRef To, bool Reseal) {
  size_t P = Text.find(From.str());
  EXPECT_NE(P, std::string::npos) << From.str();
  if (P != std::string::npos)
    Text.replace(P, From.size(), To.str());
  if (Reseal) {
    size_t Body = Text.find('\n', 2) + 1; // after line 2
    Text = "{\n" + TraceMap::digestLine(StringRef(Text).drop_front(Body)) +
           Text.substr(Body);
  }
  return Text;
}

TEST(TraceMapDigest, FNV1a64ReferenceValues) {
  // Published FNV-1a 64-bit test vectors.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(TraceMapDigest, WrittenOnLineTwoOverTheBytesAfterIt) {
  std::string Text = smallMap().toJSON();
  ASSERT_EQ(Text.rfind("{\n  \"digest\": \"fnv1a64:", 0), 0u) << Text;
  size_t Body = Text.find('\n', 2) + 1;
  EXPECT_EQ(Text.substr(2, Body - 2), TraceMap::digestLine(Text.substr(Body)));
  // 16 hex digits, zero-padded.
  EXPECT_EQ(TraceMap::digestLine("a"), "  \"digest\": \"fnv1a64:af63dc4c8601ec8c\",\n");
  EXPECT_EQ(TraceMap::digestLine("foobar"),
            "  \"digest\": \"fnv1a64:85944171f73967e8\",\n");
  auto Back = TraceMap::parseJSON(Text, "fw.wmap");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_TRUE(*Back == smallMap());
  EXPECT_EQ(Back->toJSON(), Text);
}

TEST(TraceMapDigest, AnyEditAfterWritingIsRefused) {
  std::string Good = smallMap().toJSON();
  const std::string Modified =
      "fw.wmap: line 2: content digest does not match: the map was modified after wsn-cc "
      "wrote it";
  // A global renamed to another of the program (issue 21's mutants: replay diverged).
  EXPECT_EQ(parseError(edit(Good, "\"name\":\"flag\"", "\"name\":\"counter\"", false))
                .rfind(Modified, 0),
            0u);
  // A size moved by one, within every bound.
  EXPECT_EQ(parseError(edit(Good, "\"size\":2", "\"size\":3", false)).rfind(Modified, 0), 0u);
  // Whitespace only: the digest covers the bytes, not a canonical form.
  EXPECT_EQ(parseError(edit(Good, "\"format\": ", "\"format\":  ", false)).rfind(Modified, 0),
            0u);
  // An unknown key, which the parser ignores.
  EXPECT_EQ(parseError(edit(Good, "\"tasks\": []", "\"tasks\": [], \"x\": 1", false))
                .rfind(Modified, 0),
            0u);
  // The message gives both digests.
  std::string E = parseError(edit(Good, "\"size\":2", "\"size\":3", false));
  EXPECT_NE(E.find("the bytes after line 2 hash to fnv1a64:"), std::string::npos) << E;
  EXPECT_NE(E.find("rebuild the program with wsn-cc"), std::string::npos) << E;
  // The same edits read when the digest is recomputed, or not verified (fuzz targets).
  EXPECT_EQ(parseError(edit(Good, "\"size\":2", "\"size\":3", true)), "<no error>");
  EXPECT_EQ(parseError(edit(Good, "\"size\":2", "\"size\":3", false), TraceMap::Digest::Skip),
            "<no error>");
}

TEST(TraceMapDigest, OldMapsAndMisplacedDigests) {
  std::string Good = smallMap().toJSON();
  size_t Body = Good.find('\n', 2) + 1;
  // Written before the digest: refused with the way out.
  std::string Old = "{\n" + Good.substr(Body);
  std::string E = parseError(Old);
  EXPECT_EQ(E.rfind("fw.wmap: top level: missing key 'digest': the map was written by an "
                    "older wsn-cc, without a content digest; rebuild the program with wsn-cc",
                    0),
            0u)
      << E;
  // The digest key elsewhere than line 2.
  std::string DigestLine = Good.substr(2, Body - 2);
  std::string Moved = "{\n" + Good.substr(Body);
  Moved.insert(Moved.find("  \"version\""), DigestLine);
  EXPECT_EQ(parseError(Moved).rfind("fw.wmap: line 2: key 'digest' is not the map's second "
                                    "line, as wsn-cc writes it",
                                    0),
            0u)
      << parseError(Moved);
  // Not a digest.
  EXPECT_EQ(parseError(edit(Good, "fnv1a64:", "sha256:", false)),
            "fw.wmap: line 2: key 'digest' is not \"fnv1a64:\" and 16 lowercase "
            "hexadecimal digits");
  std::string Upper = Good;
  for (size_t I = 23; I < 39; ++I)
    Upper[I] = toupper(Upper[I]);
  if (Upper != Good)
    EXPECT_NE(parseError(Upper).find("16 lowercase hexadecimal digits"), std::string::npos);
}

TEST(TraceMapBounds, RingGeometry) {
  std::string Good = smallMap().toJSON();
  const char *Ring = "fw.wmap: top level: buf_size 256 and seg_size 8 are not a trace ring "
                     "(at least two segments of at least 16 bytes, at most 32768 bytes in all)";
  EXPECT_EQ(parseError(edit(Good, "\"seg_size\": 64", "\"seg_size\": 8", true)), Ring);
  EXPECT_NE(parseError(edit(Good, "\"seg_size\": 64", "\"seg_size\": 0", true))
                .find("seg_size 0 are not a trace ring"),
            std::string::npos);
  EXPECT_NE(parseError(edit(Good, "\"seg_size\": 64", "\"seg_size\": 96", true))
                .find("buf_size 256 and seg_size 96 are not a trace ring"),
            std::string::npos); // not a multiple
  EXPECT_NE(parseError(edit(Good, "\"seg_size\": 64", "\"seg_size\": 256", true))
                .find("are not a trace ring"),
            std::string::npos); // one segment
  EXPECT_NE(parseError(edit(edit(Good, "\"buf_size\": 256", "\"buf_size\": 65536", false),
                            "\"seg_size\": 64", "\"seg_size\": 256", true))
                .find("buf_size 65536 and seg_size 256 are not a trace ring"),
            std::string::npos); // above 32768
}

TEST(TraceMapBounds, RecordsFitASegment) {
  // seg_size 64: a checkpoint or effect payload holds at most 56 bytes (spec/trace-format.md
  // section 2: the instrumentation rejects records that could exceed seg_size - 8).
  std::string Good = smallMap().toJSON();
  // Anchor: counter (2) + latch (1); counter at 55 makes 56 (fits), 56 makes 57.
  EXPECT_EQ(parseError(edit(Good, "\"name\":\"counter\",\"size\":2",
                            "\"name\":\"counter\",\"size\":55", true)),
            "<no error>");
  EXPECT_EQ(parseError(edit(Good, "\"name\":\"counter\",\"size\":2",
                            "\"name\":\"counter\",\"size\":56", true)),
            "fw.wmap: anchors[0].vars[1].size: 1 makes the checkpoint record's payload 57 "
            "bytes, more than a 64-byte segment holds (56)");
  // Effect: return value 2 + flag; the return value alone, then a write.
  EXPECT_EQ(parseError(edit(Good, "\"return_size\":2", "\"return_size\":57", true)),
            "fw.wmap: effects[0].return_size: 57 is more than a 64-byte segment holds (56)");
  EXPECT_EQ(parseError(edit(Good, "\"name\":\"flag\",\"size\":1", "\"name\":\"flag\",\"size\":55",
                            true)),
            "fw.wmap: effects[0].writes[0].size: 55 makes the effect record's payload 57 "
            "bytes, more than a 64-byte segment holds (56)");
  // Issue 21's mutant: a size of 65556 (no longer a record of the trace that disagrees).
  EXPECT_EQ(parseError(edit(Good, "\"name\":\"flag\",\"size\":1",
                            "\"name\":\"flag\",\"size\":65556", false)),
            "fw.wmap: effects[0].writes[0].size: 65556 exceeds the 65536-byte data space of "
            "a 16-bit MCU");
  // The sum is computed without overflow.
  EXPECT_NE(parseError(edit(Good, "\"return_size\":2", "\"return_size\":4294967295", false))
                .find("effects[0].return_size: 4294967295 is more than"),
            std::string::npos);
}

TEST(TraceMapBounds, InvariantInputsWithinTheDataSpace) {
  std::string Good = smallMap().toJSON();
  // Inputs are not in the trace: 60 bytes (more than a segment) are fine.
  std::string Big = edit(Good, "\"inputs\":[{\"kind\":\"global\",\"name\":\"counter\",\"size\":2",
                         "\"inputs\":[{\"kind\":\"global\",\"name\":\"counter\",\"size\":60", true);
  EXPECT_EQ(parseError(Big), "<no error>");
  EXPECT_EQ(parseError(edit(Good, "\"inputs\":[{\"kind\":\"global\",\"name\":\"counter\",\"size\":2",
                            "\"inputs\":[{\"kind\":\"global\",\"name\":\"counter\",\"size\":70000",
                            false)),
            "fw.wmap: invariants[0].inputs[0].size: 70000 exceeds the 65536-byte data space "
            "of a 16-bit MCU");
}

TEST(TraceMapBounds, LatchAddressesInTheTargetsIOSpace) {
  std::string Good = smallMap().toJSON();
  EXPECT_EQ(parseError(edit(Good, "__wsn_io_0x3b", "__wsn_io_0x1ff", true)), "<no error>");
  EXPECT_EQ(parseError(edit(Good, "__wsn_io_0x3b", "__wsn_io_0x200", false)),
            "fw.wmap: anchors[0].vars[1].name: '__wsn_io_0x200' (1 byte at 0x200) is outside "
            "the I/O space of the avr MCUs (below 0x200)");
  EXPECT_EQ(parseError(edit(Good, "__wsn_io_0x3b", "__wsn_io_0x-1", false)),
            "fw.wmap: anchors[0].vars[1].name: '__wsn_io_0x-1' is not a latch register symbol "
            "(__wsn_io_0x and a hexadecimal address)");
  // A host program has no I/O registers.
  EXPECT_EQ(parseError(edit(Good, "\"target\": \"avr\"", "\"target\": \"host\"", false)),
            "fw.wmap: anchors[0].vars[1].name: '__wsn_io_0x3b' (1 byte at 0x3b) is outside "
            "the I/O space of the host MCUs (a host program has no I/O registers)");
  // msp430: peripherals below 0x200 as well.
  EXPECT_EQ(parseError(edit(Good, "\"target\": \"avr\"", "\"target\": \"msp430\"", true)),
            "<no error>");
}

TEST(TraceMapBounds, EntryIndexIsTheFilePosition) {
  // Entries out of id order in the file: messages name the file's index, which the entry
  // keeps after sorting.
  std::string Text = smallMap().toJSON();
  std::string Entry0 = "{\"id\":1,\"function\":\"main\",\"vars\":";
  std::string Big = "{\"id\":5,\"function\":\"main\",\"vars\":[{\"kind\":\"global\",\"name\":"
                    "\"x\",\"size\":60,\"ctype\":\"\"}]},\n    ";
  EXPECT_EQ(parseError(edit(Text, Entry0, Big + Entry0, false)),
            "fw.wmap: anchors[0].vars[0].size: 60 makes the checkpoint record's payload 60 "
            "bytes, more than a 64-byte segment holds (56)");
  auto R = TraceMap::parseJSON(
      edit(Text, Entry0, "{\"id\":5,\"function\":\"f\",\"vars\":[]},\n    " + Entry0, true),
      "fw.wmap");
  ASSERT_TRUE(!!R) << toString(R.takeError());
  ASSERT_TRUE(R->anchor(1) && R->anchor(5));
  EXPECT_EQ(R->Anchors[0].Id, 1u); // sorted by id
  EXPECT_EQ(R->anchor(1)->Index, 1u);
  EXPECT_EQ(R->anchor(5)->Index, 0u);
  // From the module (and smallMap's toJSON round trip), the sorted position.
  auto Back = TraceMap::parseJSON(Text, "fw.wmap");
  ASSERT_TRUE(!!Back);
  EXPECT_EQ(Back->Effects[0].Index, 0u);
}

} // namespace
