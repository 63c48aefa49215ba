//===- Parser.cpp - SensorC lexer and recursive-descent parser ------------===//
//
// Grammar: spec/sensorc.md (our own rendering of thesis Figures 3.3 and 3.4).
//
//===----------------------------------------------------------------------===//
#include "Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>

using namespace llvm;

namespace wsn {
namespace sensorc {

namespace {

enum class Tok {
  Eof,
  Ident,
  Int,
  Number, // decimal with a fraction
  String,
  Pragma, // #WORD
  LParen, RParen, LBrack, RBrack, Comma, Semi, Dot, Ellipsis,
  Assign, Eq, Ne, Lt, Le, Gt, Ge, Plus, Minus, Star, Slash, Percent,
  Arrow, DArrow, Error
};

struct Token {
  Tok K = Tok::Eof;
  std::string Text;
  SrcLoc Loc;
};

std::string describe(const Token &T) {
  switch (T.K) {
  case Tok::Eof: return "end of file";
  case Tok::String: return "string \"" + T.Text + "\"";
  default: return "'" + T.Text + "'";
  }
}

class Lexer {
public:
  Lexer(StringRef Src) : Src(Src) {}

  // Returns false with Err set on a bad character.
  bool run(std::vector<Token> &Out, std::string &Err, SrcLoc &ErrLoc) {
    while (true) {
      skipSpace();
      Token T;
      T.Loc = {Line, Col};
      if (Pos >= Src.size()) {
        T.K = Tok::Eof;
        Out.push_back(T);
        return true;
      }
      char C = Src[Pos];
      if (C == '/' && peek(1) == '*') {
        SrcLoc Start = T.Loc;
        advance(2);
        while (Pos < Src.size() && !(Src[Pos] == '*' && peek(1) == '/'))
          advance(1);
        if (Pos >= Src.size()) {
          Err = "unterminated comment";
          ErrLoc = Start;
          return false;
        }
        advance(2);
        continue;
      }
      if (isAlpha(C) || C == '_') {
        size_t B = Pos;
        // '$' inside a name: nesC writes component-qualified C names as
        // Comp$var (or Comp__var with -fnesc-separator=__). Only C names may
        // hold one; the parser rejects it in SensorC's own names.
        while (Pos < Src.size() &&
               (isAlnum(Src[Pos]) || Src[Pos] == '_' || Src[Pos] == '$'))
          advance(1);
        T.K = Tok::Ident;
        T.Text = Src.slice(B, Pos).str();
      } else if (C == '#') {
        size_t B = Pos;
        advance(1);
        while (Pos < Src.size() && (isAlpha(Src[Pos]) || Src[Pos] == '_'))
          advance(1);
        T.K = Tok::Pragma;
        T.Text = Src.slice(B, Pos).str();
      } else if (isDigit(C)) {
        size_t B = Pos;
        while (Pos < Src.size() && isDigit(Src[Pos]))
          advance(1);
        T.K = Tok::Int;
        if (Pos + 1 < Src.size() && Src[Pos] == '.' && isDigit(Src[Pos + 1])) {
          advance(1);
          while (Pos < Src.size() && isDigit(Src[Pos]))
            advance(1);
          T.K = Tok::Number;
        }
        T.Text = Src.slice(B, Pos).str();
      } else if (C == '"') {
        SrcLoc Start = T.Loc;
        advance(1);
        size_t B = Pos;
        while (Pos < Src.size() && Src[Pos] != '"' && Src[Pos] != '\n')
          advance(1);
        if (Pos >= Src.size() || Src[Pos] != '"') {
          Err = "unterminated string";
          ErrLoc = Start;
          return false;
        }
        T.K = Tok::String;
        T.Text = Src.slice(B, Pos).str();
        advance(1);
      } else {
        struct P { const char *S; Tok K; };
        static const P Puncts[] = {
            {"<->", Tok::DArrow}, {"...", Tok::Ellipsis}, {"->", Tok::Arrow},
            {"==", Tok::Eq},      {"!=", Tok::Ne},        {"<=", Tok::Le},
            {">=", Tok::Ge},      {"(", Tok::LParen},     {")", Tok::RParen},
            {"[", Tok::LBrack},   {"]", Tok::RBrack},     {",", Tok::Comma},
            {";", Tok::Semi},     {".", Tok::Dot},        {"=", Tok::Assign},
            {"<", Tok::Lt},       {">", Tok::Gt},         {"+", Tok::Plus},
            {"-", Tok::Minus},    {"*", Tok::Star},       {"/", Tok::Slash},
            {"%", Tok::Percent}};
        bool Found = false;
        for (const P &X : Puncts) {
          if (Src.substr(Pos).starts_with(X.S)) {
            T.K = X.K;
            T.Text = X.S;
            advance(strlen(X.S));
            Found = true;
            break;
          }
        }
        if (!Found) {
          Err = "unexpected character '" + std::string(1, C) + "'";
          if (!isPrint(C))
            Err = "unexpected byte 0x" + utohexstr((unsigned char)C);
          ErrLoc = T.Loc;
          return false;
        }
      }
      Out.push_back(T);
    }
  }

private:
  char peek(size_t Off) const {
    return Pos + Off < Src.size() ? Src[Pos + Off] : '\0';
  }
  void advance(size_t N) {
    for (size_t I = 0; I < N && Pos < Src.size(); ++I) {
      if (Src[Pos] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
      ++Pos;
    }
  }
  void skipSpace() {
    while (Pos < Src.size()) {
      char C = Src[Pos];
      if (C == ' ' || C == '\t' || C == '\r' || C == '\n') {
        advance(1);
      } else if (C == '/' && peek(1) == '/') {
        while (Pos < Src.size() && Src[Pos] != '\n')
          advance(1);
      } else {
        break;
      }
    }
  }
  StringRef Src;
  size_t Pos = 0;
  unsigned Line = 1, Col = 1;
};

bool isReserved(StringRef S) {
  static const char *Words[] = {
      "GLOBAL", "var", "event", "TEMP", "NODE", "ALL", "IF", "NOT", "AND",
      "OR", "ERROR", "TRUE", "FALSE", "SEND", "TO", "RECEIVE", "FROM",
      "BROADCAST", "LESS_THAN", "AFTER", "EVERY", "BCAST", "Send_rule",
      "Recv_rule", "Routing_rule"};
  for (const char *W : Words)
    if (S == W)
      return true;
  return false;
}

class Parser {
public:
  Parser(std::vector<Token> Toks, StringRef File)
      : Toks(std::move(Toks)), File(File.str()) {}

  Expected<Program> program();

private:
  // --- token helpers
  const Token &cur() const { return Toks[Pos]; }
  const Token &ahead(size_t N) const {
    return Toks[std::min(Pos + N, Toks.size() - 1)];
  }
  bool is(Tok K) const { return cur().K == K; }
  bool isWord(StringRef W) const {
    return cur().K == Tok::Ident && cur().Text == W;
  }
  bool isPragma(StringRef W) const {
    return cur().K == Tok::Pragma && cur().Text == W;
  }
  void next() {
    if (Pos + 1 < Toks.size())
      ++Pos;
  }

  // Errors: the first one wins; parse functions return null / false.
  std::nullptr_t fail(SrcLoc L, const Twine &Msg) {
    if (!Failed || L.Line > ErrLoc.Line ||
        (L.Line == ErrLoc.Line && L.Col > ErrLoc.Col)) {
      // Keep the error that got furthest (matters when backtracking).
      ErrLoc = L;
      ErrMsg = Msg.str();
    }
    Failed = true;
    return nullptr;
  }
  std::nullptr_t failHere(const Twine &Msg) {
    return fail(cur().Loc, Msg + ", found " + describe(cur()));
  }
  bool expect(Tok K, StringRef What) {
    if (is(K)) {
      next();
      return true;
    }
    failHere("expected " + What);
    return false;
  }
  bool expectWord(StringRef W) {
    if (isWord(W)) {
      next();
      return true;
    }
    failHere("expected '" + W + "'");
    return false;
  }
  Error makeError() const {
    return createStringError(inconvertibleErrorCode(), "%s:%u:%u: error: %s",
                             File.c_str(), ErrLoc.Line, ErrLoc.Col,
                             ErrMsg.c_str());
  }

  // --- grammar
  bool definition();
  bool decl();
  bool nodeList(Decl &D);
  bool optionalSegment(bool &Has, std::string &Value, SrcLoc &Loc);
  bool property();
  bool stmt();
  ExprPtr formula();
  ExprPtr iffFormula();
  ExprPtr impliesFormula();
  ExprPtr orFormula();
  ExprPtr andFormula();
  ExprPtr unaryFormula();
  ExprPtr primaryFormula();
  ExprPtr comparisonOrValue();
  ExprPtr wsnExpression();
  ExprPtr ruleCall();
  ExprPtr arith();
  ExprPtr term();
  ExprPtr factor();
  ExprPtr nodeArg(bool AllowBroadcast);
  ExprPtr globalRef(bool IsEvent);
  bool timeBound(TimeBound &T, bool Required);
  bool seconds(uint32_t &Ms);
  bool isNodeStart() const;
  bool isRelOp() const;
  bool isArithOp() const;

  std::vector<Token> Toks;
  size_t Pos = 0;
  std::string File;
  bool Failed = false;
  SrcLoc ErrLoc;
  std::string ErrMsg;
  Program P;
  StringSet<> Assigned;

  // Nesting bound (spec/sensorc.md, "Limits"): NOT chains, parentheses,
  // '->' chains, unary minus and operator chains each add a level; deeper
  // input is a located error, so neither the parser nor the passes over the
  // tree recurse without a bound.
  unsigned Depth = 0;
  class Nest {
  public:
    explicit Nest(Parser &Ps) : Ps(Ps), Saved(Ps.Depth) {}
    ~Nest() { Ps.Depth = Saved; }
    /// One level deeper; false (and the error) past MaxNestingDepth.
    bool deeper() {
      if (++Ps.Depth <= MaxNestingDepth)
        return true;
      Ps.fail(Ps.cur().Loc, "expression nested deeper than " + Twine(MaxNestingDepth) +
                                " levels (NOT, parentheses, '->' and operator chains each "
                                "add one); split it with TEMP variables");
      return false;
    }

  private:
    Parser &Ps;
    unsigned Saved;
  };
};

Expected<Program> Parser::program() {
  P.FileName = File;
  if (isPragma("#GLOBAL")) {
    next();
  } else if (isPragma("#LOCAL")) {
    next();
    if (!is(Tok::Int)) {
      failHere("expected the node id after #LOCAL");
      return makeError();
    }
    unsigned long long V;
    if (StringRef(cur().Text).getAsInteger(10, V) || V > 65535) {
      fail(cur().Loc, "node id " + cur().Text + " out of range 0..65535");
      return makeError();
    }
    P.IsLocal = true;
    P.LocalNode = V;
    next();
  } else {
    failHere("a SensorC program starts with #GLOBAL or #LOCAL");
    return makeError();
  }
  if (!definition())
    return makeError();
  if (isPragma("#NETWORK") || isPragma("#ROUTING")) {
    if (P.IsLocal) {
      failHere("#NETWORK and #ROUTING belong to SensorC_G (#GLOBAL) programs");
      return makeError();
    }
    if (isPragma("#NETWORK") &&
        !optionalSegment(P.HasNetwork, P.NetworkFile, P.NetworkLoc))
      return makeError();
    if (isPragma("#ROUTING") &&
        !optionalSegment(P.HasRouting, P.RoutingName, P.RoutingLoc))
      return makeError();
  }
  if (!property())
    return makeError();
  if (!is(Tok::Eof)) {
    failHere("expected a TEMP assignment or IF (...) ERROR;");
    return makeError();
  }
  return std::move(P);
}

bool Parser::definition() {
  if (!isPragma("#DEFINITION")) {
    failHere("expected #DEFINITION");
    return false;
  }
  next();
  while (isWord("GLOBAL") || isWord("TEMP") || isWord("NODE"))
    if (!decl())
      return false;
  return true;
}

bool Parser::decl() {
  Decl D;
  D.Loc = cur().Loc;
  StringSet<> Seen;
  auto checkNew = [&](const Token &T) -> bool {
    if (T.K != Tok::Ident || isReserved(T.Text)) {
      failHere("expected a name");
      return false;
    }
    if (StringRef(T.Text).contains('$')) {
      fail(T.Loc, "'" + T.Text +
                      "': '$' may appear only in the program's C names (after "
                      "'=' in a GLOBAL declaration)");
      return false;
    }
    if (P.findGlobal(T.Text) || P.findNodeVar(T.Text) || P.isTemp(T.Text) ||
        Seen.contains(T.Text)) {
      fail(T.Loc, "'" + T.Text + "' is already declared");
      return false;
    }
    Seen.insert(T.Text);
    return true;
  };
  if (isWord("GLOBAL")) {
    next();
    if (isWord("var"))
      D.Kind = Decl::GlobalVar;
    else if (isWord("event"))
      D.Kind = Decl::GlobalEvent;
    else {
      failHere("expected 'var' or 'event' after GLOBAL");
      return false;
    }
    next();
    if (!checkNew(cur()))
      return false;
    D.Alias = cur().Text;
    next();
    if (!expect(Tok::Assign, "'='"))
      return false;
    if (is(Tok::Star)) {
      D.Deref = true;
      next();
    }
    if (!is(Tok::Ident)) {
      failHere("expected the program's C identifier");
      return false;
    }
    D.CName = cur().Text;
    next();
  } else if (isWord("TEMP")) {
    D.Kind = Decl::Temp;
    next();
    while (true) {
      if (!checkNew(cur()))
        return false;
      D.Names.push_back(cur().Text);
      next();
      if (!is(Tok::Comma))
        break;
      next();
    }
  } else {
    D.Kind = Decl::Node;
    next();
    if (!checkNew(cur()))
      return false;
    D.Alias = cur().Text;
    next();
    if (!expect(Tok::Assign, "'='") || !expect(Tok::LBrack, "'['") ||
        !nodeList(D) || !expect(Tok::RBrack, "']'"))
      return false;
  }
  if (!expect(Tok::Semi, "';'"))
    return false;
  P.Decls.push_back(std::move(D));
  return true;
}

bool Parser::nodeList(Decl &D) {
  if (isWord("ALL")) {
    D.All = true;
    next();
    return true;
  }
  auto readId = [&](unsigned &Out) {
    if (!is(Tok::Int)) {
      failHere("expected a node id or ALL");
      return false;
    }
    unsigned long long V;
    if (StringRef(cur().Text).getAsInteger(10, V) || V > 65535) {
      fail(cur().Loc, "node id " + cur().Text + " out of range 0..65535");
      return false;
    }
    Out = V;
    next();
    return true;
  };
  while (true) {
    unsigned Lo, Hi;
    SrcLoc L = cur().Loc;
    if (!readId(Lo))
      return false;
    Hi = Lo;
    if (is(Tok::Ellipsis)) {
      next();
      if (!readId(Hi))
        return false;
      if (Hi < Lo) {
        fail(L, "empty node range " + Twine(Lo) + " ... " + Twine(Hi));
        return false;
      }
    }
    D.Ranges.push_back({Lo, Hi});
    if (!is(Tok::Comma))
      return true;
    next();
  }
}

bool Parser::optionalSegment(bool &Has, std::string &Value, SrcLoc &Loc) {
  Has = true;
  Loc = cur().Loc;
  next();
  if (is(Tok::String)) {
    Value = cur().Text;
    if (Value.empty()) {
      fail(cur().Loc, "empty name");
      return false;
    }
    Loc = cur().Loc;
    next();
  }
  return true;
}

bool Parser::property() {
  if (!isPragma("#PROPERTY")) {
    failHere(P.IsLocal ? "expected #PROPERTY"
                       : "expected #NETWORK, #ROUTING or #PROPERTY");
    return false;
  }
  next();
  while (!is(Tok::Eof) && !Failed)
    if (!stmt())
      return false;
  return !Failed;
}

bool Parser::stmt() {
  Stmt S;
  S.Loc = cur().Loc;
  if (isWord("IF")) {
    S.Kind = Stmt::Check;
    next();
    if (!expect(Tok::LParen, "'(' after IF"))
      return false;
    ExprPtr C1 = formula();
    if (!C1 || !expect(Tok::RParen, "')'"))
      return false;
    if (isWord("IF")) {
      next();
      if (!expect(Tok::LParen, "'(' after IF"))
        return false;
      ExprPtr C2 = formula();
      if (!C2 || !expect(Tok::RParen, "')'"))
        return false;
      S.Guard = C1;
      S.Violation = C2;
    } else {
      S.Violation = C1;
    }
    if (!expectWord("ERROR") || !expect(Tok::Semi, "';'"))
      return false;
    P.Stmts.push_back(std::move(S));
    return true;
  }
  if (is(Tok::Ident) && ahead(1).K == Tok::Assign) {
    const Token &T = cur();
    if (!P.isTemp(T.Text)) {
      fail(T.Loc, "'" + T.Text + "' is not a TEMP variable; only TEMPs can "
                                 "be assigned");
      return false;
    }
    if (Assigned.contains(T.Text)) {
      fail(T.Loc, "TEMP '" + T.Text + "' is assigned twice");
      return false;
    }
    S.Kind = Stmt::TempAssign;
    S.Temp = T.Text;
    next();
    next();
    S.Value = formula();
    if (!S.Value || !expect(Tok::Semi, "';'"))
      return false;
    Assigned.insert(S.Temp);
    P.Stmts.push_back(std::move(S));
    return true;
  }
  failHere("expected a TEMP assignment or IF (...) ERROR;");
  return false;
}

ExprPtr Parser::formula() { return iffFormula(); }

ExprPtr Parser::iffFormula() {
  SrcLoc L = cur().Loc;
  ExprPtr A = impliesFormula();
  if (!A)
    return nullptr;
  if (is(Tok::DArrow)) {
    next();
    ExprPtr B = impliesFormula();
    if (!B)
      return nullptr;
    if (is(Tok::DArrow))
      return failHere("'<->' does not chain; add parentheses");
    return mkBinary(EK::Iff, A, B, L);
  }
  return A;
}

ExprPtr Parser::impliesFormula() {
  SrcLoc L = cur().Loc;
  ExprPtr A = orFormula();
  if (!A)
    return nullptr;
  if (is(Tok::Arrow)) {
    next();
    Nest N(*this);
    if (!N.deeper())
      return nullptr;
    ExprPtr B = impliesFormula(); // right associative
    if (!B)
      return nullptr;
    return mkBinary(EK::Implies, A, B, L);
  }
  return A;
}

ExprPtr Parser::orFormula() {
  SrcLoc L = cur().Loc;
  std::vector<ExprPtr> Kids;
  ExprPtr A = andFormula();
  if (!A)
    return nullptr;
  Kids.push_back(A);
  while (isWord("OR")) {
    next();
    ExprPtr B = andFormula();
    if (!B)
      return nullptr;
    Kids.push_back(B);
  }
  return Kids.size() == 1 ? A : mkNary(EK::Or, Kids, L);
}

ExprPtr Parser::andFormula() {
  SrcLoc L = cur().Loc;
  std::vector<ExprPtr> Kids;
  ExprPtr A = unaryFormula();
  if (!A)
    return nullptr;
  Kids.push_back(A);
  while (isWord("AND")) {
    next();
    ExprPtr B = unaryFormula();
    if (!B)
      return nullptr;
    Kids.push_back(B);
  }
  return Kids.size() == 1 ? A : mkNary(EK::And, Kids, L);
}

ExprPtr Parser::unaryFormula() {
  Nest N(*this);
  if (!N.deeper())
    return nullptr;
  if (isWord("NOT")) {
    SrcLoc L = cur().Loc;
    next();
    ExprPtr A = unaryFormula();
    if (!A)
      return nullptr;
    return mkNot(A, L);
  }
  return primaryFormula();
}

bool Parser::isRelOp() const {
  switch (cur().K) {
  case Tok::Eq: case Tok::Ne: case Tok::Lt: case Tok::Le: case Tok::Gt:
  case Tok::Ge:
    return true;
  default:
    return false;
  }
}

bool Parser::isArithOp() const {
  switch (cur().K) {
  case Tok::Plus: case Tok::Minus: case Tok::Star: case Tok::Slash:
  case Tok::Percent:
    return true;
  default:
    return false;
  }
}

bool Parser::isNodeStart() const {
  if (cur().K == Tok::Int)
    return true;
  return cur().K == Tok::Ident && P.findNodeVar(cur().Text);
}

ExprPtr Parser::primaryFormula() {
  const Token &T = cur();
  if (is(Tok::LParen)) {
    // Either a parenthesized formula or the start of an arithmetic operand:
    // try the formula first and fall back when an operator follows.
    size_t Save = Pos;
    next();
    ExprPtr F = formula();
    if (F && is(Tok::RParen)) {
      next();
      if (!isRelOp() && !isArithOp())
        return F;
    }
    bool HadError = Failed;
    Pos = Save;
    ExprPtr C = comparisonOrValue();
    if (C && !HadError)
      return C;
    if (C) {
      // The comparison reading succeeded: forget the failed formula attempt.
      Failed = false;
      ErrMsg.clear();
      ErrLoc = {};
    }
    return C;
  }
  if (isWord("TRUE") || isWord("FALSE")) {
    bool V = isWord("TRUE");
    next();
    return mkBool(V, T.Loc);
  }
  if (isWord("Send_rule") || isWord("Recv_rule") || isWord("Routing_rule"))
    return ruleCall();
  if (T.K == Tok::Ident && P.isTemp(T.Text)) {
    Tok N = ahead(1).K;
    if (N == Tok::Plus || N == Tok::Minus || N == Tok::Star ||
        N == Tok::Slash || N == Tok::Percent || N == Tok::Eq ||
        N == Tok::Ne || N == Tok::Lt || N == Tok::Le || N == Tok::Gt ||
        N == Tok::Ge)
      return fail(T.Loc, "TEMP '" + T.Text + "' is a formula, not a value");
    auto E = std::make_shared<Expr>(EK::Temp);
    E->Name = T.Text;
    E->Loc = T.Loc;
    next();
    return E;
  }
  if (T.K == Tok::Ident) {
    if (const Decl *D = P.findGlobal(T.Text))
      if (D->Kind == Decl::GlobalEvent)
        return globalRef(/*IsEvent=*/true);
  }
  if (isNodeStart()) {
    const Token &N = ahead(1);
    if (N.K == Tok::Ident &&
        (N.Text == "SEND" || N.Text == "RECEIVE" || N.Text == "BROADCAST"))
      return wsnExpression();
  }
  return comparisonOrValue();
}

ExprPtr Parser::comparisonOrValue() {
  SrcLoc L = cur().Loc;
  ExprPtr A = arith();
  if (!A)
    return nullptr;
  if (!isRelOp()) {
    // A bare value stands for "value != 0", as in C.
    if (is(Tok::Ident) || is(Tok::Int) || is(Tok::LParen))
      return failHere("expected an operator");
    return mkCmp(CmpOp::NE, A, mkInt(0, L), L);
  }
  CmpOp Op;
  switch (cur().K) {
  case Tok::Eq: Op = CmpOp::EQ; break;
  case Tok::Ne: Op = CmpOp::NE; break;
  case Tok::Lt: Op = CmpOp::LT; break;
  case Tok::Le: Op = CmpOp::LE; break;
  case Tok::Gt: Op = CmpOp::GT; break;
  default: Op = CmpOp::GE; break;
  }
  next();
  ExprPtr B = arith();
  if (!B)
    return nullptr;
  if (isRelOp())
    return failHere("comparisons do not chain; use AND");
  return mkCmp(Op, A, B, L);
}

ExprPtr Parser::arith() {
  Nest N(*this); // each operator of the chain nests the tree one level
  ExprPtr A = term();
  if (!A)
    return nullptr;
  while (is(Tok::Plus) || is(Tok::Minus)) {
    if (!N.deeper())
      return nullptr;
    SrcLoc L = cur().Loc;
    ArithOp Op = is(Tok::Plus) ? ArithOp::Add : ArithOp::Sub;
    next();
    ExprPtr B = term();
    if (!B)
      return nullptr;
    auto E = std::make_shared<Expr>(EK::Arith);
    E->Arith = Op;
    E->Kids = {A, B};
    E->Loc = L;
    A = E;
  }
  return A;
}

ExprPtr Parser::term() {
  Nest N(*this);
  ExprPtr A = factor();
  if (!A)
    return nullptr;
  while (is(Tok::Star) || is(Tok::Slash) || is(Tok::Percent)) {
    if (!N.deeper())
      return nullptr;
    SrcLoc L = cur().Loc;
    ArithOp Op = is(Tok::Star)    ? ArithOp::Mul
                 : is(Tok::Slash) ? ArithOp::Div
                                  : ArithOp::Rem;
    next();
    ExprPtr B = factor();
    if (!B)
      return nullptr;
    auto E = std::make_shared<Expr>(EK::Arith);
    E->Arith = Op;
    E->Kids = {A, B};
    E->Loc = L;
    A = E;
  }
  return A;
}

ExprPtr Parser::factor() {
  Nest N(*this);
  if (!N.deeper())
    return nullptr;
  const Token &T = cur();
  switch (T.K) {
  case Tok::Minus: {
    next();
    ExprPtr A = factor();
    if (!A)
      return nullptr;
    auto E = std::make_shared<Expr>(EK::Neg);
    E->Kids = {A};
    E->Loc = T.Loc;
    return E;
  }
  case Tok::LParen: {
    next();
    ExprPtr A = arith();
    if (!A || !expect(Tok::RParen, "')'"))
      return nullptr;
    return A;
  }
  case Tok::Int: {
    int64_t V;
    if (StringRef(T.Text).getAsInteger(10, V) || V > 0x7fffffff)
      return fail(T.Loc, "integer " + T.Text + " is too large");
    next();
    return mkInt(V, T.Loc);
  }
  case Tok::Number:
    return fail(T.Loc, "decimal numbers are only allowed in time bounds");
  case Tok::Ident: {
    if (P.findNodeVar(T.Text)) {
      next();
      return mkNodeVar(T.Text, T.Loc);
    }
    if (const Decl *D = P.findGlobal(T.Text)) {
      if (D->Kind == Decl::GlobalEvent)
        return fail(T.Loc, "event '" + T.Text + "' is a condition, not a "
                                                "value");
      return globalRef(/*IsEvent=*/false);
    }
    if (P.isTemp(T.Text))
      return fail(T.Loc, "TEMP '" + T.Text + "' is a formula, not a value");
    if (isReserved(T.Text))
      return failHere("expected a value");
    return fail(T.Loc, "unknown name '" + T.Text +
                           "' (declare it with GLOBAL, TEMP or NODE)");
  }
  default:
    return failHere("expected a value or a condition");
  }
}

ExprPtr Parser::globalRef(bool IsEvent) {
  const Token &T = cur();
  auto E = std::make_shared<Expr>(IsEvent ? EK::Event : EK::Var);
  E->Name = T.Text;
  E->Loc = T.Loc;
  next();
  if (is(Tok::LBrack)) {
    next();
    ExprPtr N = nodeArg(false);
    if (!N || !expect(Tok::RBrack, "']'"))
      return nullptr;
    E->Kids.push_back(N);
  } else if (!P.IsLocal) {
    return fail(T.Loc, "GLOBAL " + Twine(IsEvent ? "event" : "variable") +
                           " '" + T.Text +
                           "' needs a node index such as [n] in a SensorC_G "
                           "property");
  }
  while (!IsEvent && is(Tok::Dot)) {
    next();
    if (!is(Tok::Ident))
      return failHere("expected a field name after '.'");
    E->Fields.push_back(cur().Text);
    next();
  }
  return E;
}

ExprPtr Parser::nodeArg(bool AllowBroadcast) {
  const Token &T = cur();
  if (T.K == Tok::Int) {
    unsigned long long V;
    if (StringRef(T.Text).getAsInteger(10, V) || V > 65535)
      return fail(T.Loc, "node id " + T.Text + " out of range 0..65535");
    next();
    return mkNode(V, T.Loc);
  }
  if (T.K == Tok::Ident && T.Text == "BCAST") {
    if (!AllowBroadcast)
      return fail(T.Loc, "BCAST is only a Send_rule destination");
    next();
    return mkNode(BroadcastNode, T.Loc);
  }
  if (T.K == Tok::Ident && P.findNodeVar(T.Text)) {
    next();
    return mkNodeVar(T.Text, T.Loc);
  }
  if (T.K == Tok::Ident && !isReserved(T.Text))
    return fail(T.Loc, "'" + T.Text + "' is not a NODE variable");
  return failHere("expected a node id or NODE variable");
}

bool Parser::seconds(uint32_t &Ms) {
  const Token &T = cur();
  if (T.K != Tok::Int && T.K != Tok::Number) {
    failHere("expected a time in seconds");
    return false;
  }
  double V = std::strtod(T.Text.c_str(), nullptr);
  if (V > 4000000.0) {
    fail(T.Loc, "time " + T.Text + " s is too large");
    return false;
  }
  Ms = static_cast<uint32_t>(std::llround(V * 1000.0));
  if (Ms == 0) {
    fail(T.Loc, "a time bound must be positive");
    return false;
  }
  next();
  return true;
}

bool Parser::timeBound(TimeBound &T, bool Required) {
  if (isWord("LESS_THAN")) {
    next();
    T.Kind = TimeBound::LessThan;
    return seconds(T.Ms);
  }
  if (isWord("AFTER")) {
    next();
    if (!seconds(T.AfterMs) || !expectWord("EVERY"))
      return false;
    T.Kind = TimeBound::Every;
    return seconds(T.Ms);
  }
  if (isWord("EVERY")) {
    next();
    T.Kind = TimeBound::Every;
    return seconds(T.Ms);
  }
  if (Required) {
    failHere("expected a time bound (LESS_THAN t, EVERY p or AFTER t EVERY "
             "p): a message property must be checkable at run time");
    return false;
  }
  return true;
}

ExprPtr Parser::wsnExpression() {
  SrcLoc L = cur().Loc;
  ExprPtr N = nodeArg(false);
  if (!N)
    return nullptr;
  std::string Op = cur().Text;
  next();
  auto E = std::make_shared<Expr>(Op == "SEND"      ? EK::Send
                                  : Op == "RECEIVE" ? EK::Recv
                                                    : EK::Bcast);
  E->Loc = L;
  const Token &D = cur();
  const Decl *G = D.K == Tok::Ident ? P.findGlobal(D.Text) : nullptr;
  if (!G || G->Kind != Decl::GlobalVar)
    return fail(D.Loc, "expected a message (a GLOBAL var alias) after " + Op +
                           ", found " + describe(D));
  E->Name = D.Text;
  next();
  E->Kids.push_back(N);
  if (Op != "BROADCAST") {
    if (!expectWord(Op == "SEND" ? "TO" : "FROM"))
      return nullptr;
    ExprPtr M = nodeArg(false);
    if (!M)
      return nullptr;
    E->Kids.push_back(M);
  }
  if (!timeBound(E->Time, /*Required=*/true))
    return nullptr;
  return E;
}

ExprPtr Parser::ruleCall() {
  const Token &T = cur();
  auto E = std::make_shared<Expr>(EK::Rule);
  E->Loc = T.Loc;
  E->Rule = T.Text == "Send_rule"   ? RuleKind::Send
            : T.Text == "Recv_rule" ? RuleKind::Recv
                                    : RuleKind::Routing;
  next();
  if (!expect(Tok::LParen, "'('"))
    return nullptr;
  ExprPtr A = nodeArg(false);
  if (!A || !expect(Tok::Comma, "','"))
    return nullptr;
  ExprPtr B = nodeArg(E->Rule == RuleKind::Send);
  if (!B)
    return nullptr;
  E->Kids = {A, B};
  if (E->Rule != RuleKind::Routing) {
    if (!expect(Tok::Comma, "','"))
      return nullptr;
    const Token &D = cur();
    const Decl *G = D.K == Tok::Ident ? P.findGlobal(D.Text) : nullptr;
    if (!G || G->Kind != Decl::GlobalVar)
      return fail(D.Loc, "expected a message alias such as 'msg.type', "
                         "found " + describe(D));
    E->Name = D.Text;
    next();
    if (!expect(Tok::Dot, "'.type'"))
      return nullptr;
    if (!isWord("type"))
      return failHere("expected 'type' (rules match messages by type)");
    next();
    if (is(Tok::Comma)) {
      next();
      if (!timeBound(E->Time, /*Required=*/true))
        return nullptr;
    } else {
      return failHere("expected ',' and a time bound");
    }
    if (!expect(Tok::RParen, "')'"))
      return nullptr;
  } else {
    if (!expect(Tok::RParen, "')'"))
      return nullptr;
    if (is(Tok::LBrack)) {
      next();
      ExprPtr At = nodeArg(false);
      if (!At || !expect(Tok::RBrack, "']'"))
        return nullptr;
      E->Kids.push_back(At);
    }
  }
  return E;
}

} // namespace

Expected<Program> parseProgram(StringRef Text, StringRef FileName) {
  std::vector<Token> Toks;
  std::string Err;
  SrcLoc L;
  Lexer Lx(Text);
  if (!Lx.run(Toks, Err, L))
    return createStringError(inconvertibleErrorCode(), "%s:%u:%u: error: %s",
                             FileName.str().c_str(), L.Line, L.Col,
                             Err.c_str());
  Parser P(std::move(Toks), FileName);
  return P.program();
}

Expected<Program> parseFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: error: cannot read: %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return parseProgram((*Buf)->getBuffer(), Path);
}

} // namespace sensorc
} // namespace wsn
