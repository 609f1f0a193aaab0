"""The inventory of personal attributes: what a statement about a person can be keyed to.

A key is (subject, predicate, value): whose attribute, which attribute, what it is now. The
predicate is always one of the canonical names below (or a member of one of the two families,
``relation:<role>`` and ``preference:<topic>``), whoever reads the statement: the rule-based
extractor keys through the frames, a model is asked for a name from the same list, and recall
groups hits that state the same attribute by the same names.

Each attribute is data, never a sentence pattern:

- ``name``: the canonical predicate (``lives_in``, ``works_at``, ``relation:partner`` …);
- ``multi``: whether values sit side by side (pets, clubs, languages learnt) or a new one
  replaces the old (home, employer, partner);
- ``description``: one sentence, embedded once by the caller for the similarity fallback
  (:func:`nearest`), when no frame fits;
- ``nouns``: heads that name the attribute itself ("my *employer* is Acme", "the new *boss*
  is Priya", "Acme is my *company*");
- ``frames``: verbs (lemmas, with their particle and the preposition that introduces the
  value) that state or change it ("move *to*", "start *at*", "join", "hand in *notice*");
  a frame that ``ends`` the value says the old one no longer holds ("quit", "break up with");
- ``values``: words that give the attribute away by the value alone ("vegan" is a diet,
  "Italian" a language, "nurse" an occupation);
- ``entities``: the entity labels a value of it usually carries (``GPE`` for a home,
  ``ORG`` for an employer), which settle a verb shared by several attributes.

This module is the bottom of ``core``: it imports nothing but the standard library and numpy,
and never loads a model (vectors are passed in).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Frame:
    """A verb that states (or ends) an attribute: ``verb`` is its lemma with any particle ("move",
    "hand in", "pass away"), ``prep`` the preposition before the value (None: the value is the
    direct object, or there is none), ``obj`` a fixed object noun the frame needs ("notice" for
    "hand in notice"), ``ends`` whether it says the value stops holding, ``weak`` and ``state``
    as below."""

    verb: str
    prep: str | None = None
    obj: str | None = None
    ends: bool = False
    #: a verb of many uses ("have", "play", "go to"): it states the attribute only when the value
    #: gives it away too (a noun, a value or an entity of the attribute)
    weak: bool = False
    #: a verb of a lasting state ("live in", "work at", "use"), not of a change ("move to", "join"):
    #: said in the past it tells history, never a new current value
    state: bool = False


@dataclass(frozen=True)
class Attribute:
    """One personal attribute of the inventory (see the module docstring for each field)."""

    name: str
    multi: bool
    description: str
    nouns: tuple[str, ...] = ()
    frames: tuple[Frame, ...] = ()
    values: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def _frames(text: str, ends: bool = False) -> tuple[Frame, ...]:
    """Frames written one per ';': a verb lemma with its particles joined by '_' ("hand_in",
    "pass_away"), a word after '+' for the frame's fixed object ("hand_in +notice"), and last the
    preposition that introduces the value, when there is one ("move to", "be married to"). A frame
    ending in '?' is weak (the value must give the attribute away too: "play?" needs an instrument
    or a sport). Whether it states a lasting state is read from :data:`STATE_VERBS`."""
    out = []
    for part in text.split(";"):
        weak = part.strip().endswith("?")
        tokens = part.replace("?", " ").split()
        obj = next((t[1:] for t in tokens if t.startswith("+")), None)
        tokens = [t for t in tokens if not t.startswith("+")]
        if not tokens:
            continue
        prep = tokens.pop() if len(tokens) > 1 and tokens[-1] in _PREPOSITIONS else None
        verb = " ".join(tokens).replace("_", " ")
        out.append(Frame(verb, prep, obj, ends, weak, not ends and obj is None and verb in STATE_VERBS))
    return tuple(out)


#: verbs of a lasting state: in the past tense they tell history ("when I still used Vim", "I lived
#: in Berlin for years"); any other frame verb is a change, current from the moment it is said
STATE_VERBS = frozenset(
    {
        "live", "reside", "be based", "work", "be employed", "use", "have", "own", "drive", "ride",
        "study", "attend", "speak", "be fluent", "play", "like", "love", "enjoy", "adore", "hate",
        "dislike", "detest", "date", "be married", "be engaged", "be with", "be seeing", "see", "bank",
        "support", "root", "cheer", "be allergic", "train", "go", "report", "code", "write", "eat",
        "follow", "be on", "read", "be reading", "do", "be", "volunteer", "commute", "share", "rent",
        "lease", "practise", "practice", "learn", "suffer", "take", "sing", "major",
    }
)  # fmt: skip
#: verbs that say an attribute named as "my X" changed to a new value ("I switched my editor to
#: Helix", "my phone changed to a Pixel")
SWITCH_VERBS = frozenset({"switch", "change", "update", "upgrade", "move", "replace", "swap", "trade"})


_PREPOSITIONS = frozenset(
    ["in", "to", "at", "for", "with", "from", "into", "on", "by", "as", "of", "about", "over", "onto"]
)


def _a(
    name: str,
    multi: bool,
    description: str,
    *,
    nouns: str = "",
    frames: str = "",
    ends: str = "",
    values: str = "",
    entities: str = "",
    aliases: str = "",
) -> Attribute:
    return Attribute(
        name=name,
        multi=multi,
        description=description,
        nouns=tuple(n.strip() for n in nouns.split(",") if n.strip()),
        frames=_frames(frames) + _frames(ends, ends=True),
        values=tuple(v.strip() for v in values.split(",") if v.strip()),
        entities=tuple(entities.split()),
        aliases=tuple(aliases.split()),
    )


_OCCUPATIONS = """
    teacher, nurse, doctor, physician, engineer, developer, programmer, designer, artist, painter, writer,
    author, journalist, reporter, lawyer, attorney, accountant, student, chef, cook, baker, waiter,
    waitress, barista, bartender, musician, singer, dancer, actor, actress, photographer, architect,
    scientist, researcher, professor, lecturer, librarian, pharmacist, dentist, therapist, counsellor,
    counselor, psychologist, surgeon, vet, veterinarian, firefighter, pilot, driver, mechanic,
    electrician, plumber, carpenter, farmer, manager, consultant, analyst, entrepreneur, freelancer,
    editor, translator, tutor, coach, trainer, instructor, paramedic, soldier, intern, cashier, clerk,
    secretary, receptionist, realtor, banker, economist, technician, officer, detective, biologist,
    chemist, physicist, mathematician, historian, nanny, caregiver, midwife, hairdresser, stylist,
    tailor, builder, gardener, janitor, cleaner, retiree, pastor, priest, founder, recruiter, marketer,
    strategist, administrator, director, supervisor, specialist, advisor, adviser, assistant, lead
"""
_LANGUAGES = """
    english, spanish, french, german, italian, portuguese, dutch, swedish, norwegian, danish, finnish,
    polish, czech, greek, turkish, russian, ukrainian, arabic, hebrew, hindi, urdu, bengali, japanese,
    korean, chinese, mandarin, cantonese, vietnamese, thai, indonesian, swahili, persian, farsi, latin,
    catalan, basque, irish, welsh, icelandic, hungarian, romanian, croatian, serbian, tagalog, esperanto,
    sign language
"""
_INSTRUMENTS = """
    guitar, piano, violin, cello, viola, drums, bass, ukulele, flute, clarinet, saxophone, trumpet,
    trombone, harp, banjo, mandolin, accordion, harmonica, keyboard, synthesizer, oboe
"""
_SPORTS = """
    football, soccer, tennis, basketball, volleyball, badminton, squash, padel, golf, rugby, cricket,
    hockey, baseball, swimming, running, cycling, climbing, bouldering, rowing, boxing, judo, karate,
    yoga, pilates, skiing, snowboarding, surfing, triathlon, crossfit, fencing, table tennis, handball
"""
_HOBBIES = """
    knitting, painting, drawing, photography, gardening, baking, cooking, pottery, chess, reading,
    writing, hiking, birdwatching, woodworking, sewing, crochet, calligraphy, gaming, fishing, camping,
    dancing, singing, journaling, origami, embroidery, sketching, cross-stitch
"""
_PETS = """
    dog, puppy, pup, cat, kitten, hamster, rabbit, bunny, parrot, budgie, bird, fish, turtle, tortoise,
    horse, pony, guinea pig, snake, lizard, ferret, gecko, chinchilla, goldfish
"""

#: The inventory. Order is fixed: callers embed :func:`descriptions` in this order for :func:`nearest`.
ATTRIBUTES: tuple[Attribute, ...] = (
    _a(
        "lives_in",
        False,
        "The city, town or country where the person lives and has their home.",
        nouns="home, city, town, hometown, home town, address, home address, location, place, country, "
        "flat, apartment, house, new place",
        frames="live in; reside in; be based in; move to; relocate to; settle in; move_back to; "
        "emigrate to; move into",
        ends="move_out of; move_away from; leave?",
        entities="GPE LOC",
        aliases="home city",
    ),
    _a(
        "neighbourhood",
        False,
        "The neighbourhood, district or part of town the person lives in.",
        nouns="neighbourhood, neighborhood, district, area, borough, quarter, suburb",
        entities="FAC LOC GPE",
    ),
    _a(
        "lives_with",
        False,
        "Who the person shares their home with: a partner, roommates, family.",
        nouns="roommate, flatmate, housemate",
        frames="move_in with; live with; share +flat with; share +house with",
        ends="move_out from",
        entities="PERSON",
    ),
    _a(
        "works_at",
        False,
        "The company or organisation the person works for, their employer.",
        nouns="employer, company, workplace, firm, organisation, organization, job, new job",
        frames="work at; work for; be employed at; be employed by; join; start at; start with; "
        "take +job at; take +job with; get +job at; get +job with; accept +offer from; start +job at; "
        "be hired by; be hired at; sign with; move to?; switch to?",
        ends="quit?; leave?; hand_in +notice; resign from; resign; be fired from; be laid off from; "
        "be let_go from; retire from; retire",
        entities="ORG",
        aliases="employer",
    ),
    _a(
        "occupation",
        False,
        "The person's job title, role or profession, what they do for a living.",
        nouns="profession, occupation, role, title, position, job title",
        frames="work as; be hired as; start as; retrain as; become; be promoted to; train as; qualify as",
        values=_OCCUPATIONS,
        aliases="role job",
    ),
    _a(
        "team",
        False,
        "The team, department or group the person belongs to at work.",
        nouns="team, department, squad, unit, division",
        frames="join?; move to?; transfer to?; be on?; switch to?",
    ),
    _a(
        "relation:boss",
        False,
        "The person's boss or manager at work, whom they report to.",
        nouns="boss, manager, supervisor, line manager, team lead, lead",
        frames="report to",
        entities="PERSON",
        aliases="manager relation:manager relation:supervisor",
    ),
    _a(
        "relation:partner",
        False,
        "The person's romantic partner: girlfriend, boyfriend, wife, husband or spouse.",
        nouns="partner, wife, husband, spouse, boyfriend, girlfriend, fiance, fiancee, fiancé, fiancée",
        frames="date; marry; be married to; be engaged to; get engaged to; get married to; be seeing; "
        "be with?; go_out with",
        ends="break_up with; split_up with; divorce; separate from; leave?",
        entities="PERSON",
        aliases="partner relation:wife relation:husband relation:spouse relation:boyfriend "
        "relation:girlfriend relation:fiance",
    ),
    _a(
        "relationship_status",
        False,
        "Whether the person is single, dating, engaged, married, divorced or widowed.",
        nouns="relationship status",
        values="single, married, engaged, divorced, widowed, separated, taken",
    ),
    _a(
        "relation:mother",
        False,
        "The person's mother.",
        nouns="mother, mom, mum, mama",
        entities="PERSON",
    ),
    _a(
        "relation:father",
        False,
        "The person's father.",
        nouns="father, dad, papa",
        entities="PERSON",
    ),
    _a(
        "pet",
        True,
        "An animal the person keeps as a pet, such as a dog or a cat, and its name.",
        nouns=_PETS,
        frames="adopt; rescue; get?; own?",
        ends="pass_away; die; rehome; lose?; put_down",
        values=_PETS,
        aliases="pets",
    ),
    _a(
        "car",
        False,
        "The car or vehicle the person drives.",
        nouns="car, vehicle, ride, motor",
        frames="drive; lease; buy?; get?",
        ends="sell?; scrap?; crash?; total?; give_away?; get_rid of?; be_rid of?; trade_in?",
        values="skoda, kia, toyota, volvo, tesla, honda, ford, bmw, audi, volkswagen, vw, renault, peugeot, "
        "fiat, mazda, nissan, hyundai, polestar, citroen, opel, subaru, seat, cupra, dacia, mercedes, porsche",
        entities="PRODUCT ORG",
    ),
    _a(
        "bike",
        False,
        "The bicycle the person rides.",
        nouns="bike, bicycle, e-bike, road bike",
        frames="ride",
        entities="PRODUCT",
    ),
    _a(
        "phone",
        False,
        "The mobile phone the person uses.",
        nouns="phone, mobile, smartphone, cell, cellphone",
        frames="switch to?; upgrade to?; get?; buy?",
        values="iphone, pixel, galaxy, fairphone, oneplus, xperia, nokia, motorola, xiaomi, huawei",
        entities="PRODUCT ORG",
    ),
    _a(
        "laptop",
        False,
        "The laptop or computer the person uses.",
        nouns="laptop, computer, pc, notebook, machine",
        entities="PRODUCT ORG",
    ),
    _a(
        "operating_system",
        False,
        "The operating system the person runs on their computer.",
        nouns="operating system, os, distro",
        values="linux, windows, macos, ubuntu, fedora, arch, debian",
    ),
    _a(
        "editor",
        False,
        "The text editor or IDE the person writes code or text in.",
        nouns="editor, text editor, code editor, ide",
        frames="code in; write in?; use?; switch to?",
        ends="give_up on?; drop?; abandon?",
        values="vim, neovim, emacs, vs code, vscode, helix, sublime, sublime text, intellij, pycharm, "
        "nano, zed, atom, notepad++, xcode, cursor",
        aliases="preference:editor preference:text_editor text_editor",
    ),
    _a(
        "browser",
        False,
        "The web browser the person uses.",
        nouns="browser, web browser",
        values="firefox, chrome, safari, edge, brave, vivaldi, opera, arc",
    ),
    _a(
        "diet",
        False,
        "What the person eats or avoids as a diet, such as vegan or vegetarian.",
        nouns="diet",
        frames="go?; become?; eat?; follow?",
        ends="quit?",
        values="vegan, vegetarian, pescatarian, pescetarian, carnivore, omnivore, flexitarian, keto, paleo, "
        "gluten-free, gluten free, lactose-free, dairy-free, halal, kosher, plant-based",
    ),
    _a(
        "allergic_to",
        True,
        "Something the person is allergic to.",
        nouns="allergy",
        frames="be allergic to",
        aliases="allergy allergies",
    ),
    _a(
        "gym",
        False,
        "The gym, fitness studio or climbing gym the person trains at.",
        nouns="gym, fitness club, fitness studio, climbing gym, bouldering gym, health club, studio",
        frames="join?; train at?; work_out at; go to?; sign_up at?; sign_up for?",
        ends="quit?; leave?; cancel?",
        entities="ORG FAC",
    ),
    _a(
        "doctor",
        False,
        "The person's doctor or general practitioner.",
        nouns="doctor, gp, physician, general practitioner, family doctor",
        frames="see?; register with?; switch to?",
        entities="PERSON ORG",
    ),
    _a(
        "dentist",
        False,
        "The person's dentist.",
        nouns="dentist, dental practice",
        entities="PERSON ORG",
    ),
    _a(
        "therapist",
        False,
        "The person's therapist, counsellor or psychologist.",
        nouns="therapist, counsellor, counselor, psychologist, psychiatrist",
        entities="PERSON",
    ),
    _a(
        "school",
        False,
        "The school, college or university the person studies at.",
        nouns="school, university, college, uni, academy, campus, alma mater",
        frames="study at; attend?; go to?; enrol at; enroll at; be accepted at; be admitted to; transfer to; "
        "start at",
        ends="graduate from; drop_out of; leave?",
        entities="ORG",
    ),
    _a(
        "studies",
        False,
        "The subject, degree or course the person is studying.",
        nouns="major, degree, course, subject, programme, program, thesis, phd, masters",
        frames="study?; major in; do +degree in; do +masters in; do +phd in",
        ends="drop?",
    ),
    _a(
        "languages_learning",
        True,
        "A language the person is learning or studying.",
        nouns="language",
        frames="learn?; study?; pick_up?; take +lessons in?; practise?; practice?",
        ends="give_up on?; give_up?; drop?; quit?",
        values=_LANGUAGES,
        entities="LANGUAGE NORP",
        aliases="language learning languages",
    ),
    _a(
        "speaks",
        True,
        "A language the person speaks fluently.",
        nouns="native language, mother tongue, first language",
        frames="speak?; be fluent in",
        values=_LANGUAGES,
        entities="LANGUAGE NORP",
    ),
    _a(
        "clubs",
        True,
        "A club, society, choir or group the person is a member of.",
        nouns="club, society, choir, league, association, group, book club, running club, band",
        frames="join?; be +member of; sign_up for?; play in?; sing in",
        ends="quit?; leave?; drop_out of?",
        entities="ORG",
        aliases="club membership",
    ),
    _a(
        "personal_best",
        False,
        "The person's personal best or record time or score in a sport.",
        nouns="personal best, pb, pr, personal record, record, best time, fastest time",
        frames="set +record; set +pb; set +best; break +record; beat +record; beat +pb; run?; clock?",
        entities="TIME QUANTITY CARDINAL",
    ),
    _a(
        "training_for",
        False,
        "The race, event or goal the person is training for.",
        nouns="goal, target race",
        frames="train for; prepare for?; sign_up for?",
        entities="EVENT",
    ),
    _a(
        "instrument",
        True,
        "A musical instrument the person plays or is learning.",
        nouns="instrument",
        frames="play?; learn?; take +lessons in?; practise?; practice?",
        ends="give_up?; quit?",
        values=_INSTRUMENTS,
    ),
    _a(
        "sport",
        True,
        "A sport the person plays or practises.",
        nouns="sport",
        frames="play?; take_up?; do?; get into?",
        ends="give_up?; quit?; stop?",
        values=_SPORTS,
    ),
    _a(
        "hobby",
        True,
        "A hobby or pastime the person does in their free time.",
        nouns="hobby, pastime, side project",
        frames="take_up; get into?; do?; start?",
        ends="give_up?; quit?; stop?",
        values=_HOBBIES,
    ),
    _a(
        "bank",
        False,
        "The bank the person banks with.",
        nouns="bank",
        frames="bank with; open +account with; open +account at; switch to?",
        ends="close +account with",
        entities="ORG",
    ),
    _a(
        "mobile_provider",
        False,
        "The mobile phone carrier or network provider the person is with.",
        nouns="carrier, mobile provider, network, phone plan, mobile plan, provider",
        entities="ORG",
    ),
    _a(
        "insurance",
        False,
        "The person's health or car insurance company.",
        nouns="insurance, insurer, health insurance",
        entities="ORG",
    ),
    _a(
        "commute",
        False,
        "How the person gets to work: by bike, train, car, on foot.",
        nouns="commute",
        frames="commute by",
    ),
    _a(
        "work_location",
        False,
        "Where the person works from: from home, from an office, remotely or hybrid.",
        nouns="office, workplace, desk",
        frames="work from?",
        values="remote, remotely, hybrid, home, the office",
    ),
    _a(
        "supported_team",
        False,
        "The sports team the person supports or is a fan of.",
        frames="support?; root for; be +fan of?; cheer for",
        entities="ORG",
    ),
    _a(
        "health_condition",
        True,
        "An illness, injury or medical condition the person has.",
        nouns="condition, diagnosis, injury",
        frames="be diagnosed with; suffer from; break?; sprain?; tear?",
        ends="recover from; get_over",
    ),
    _a(
        "medication",
        True,
        "A medicine the person takes regularly.",
        nouns="medication, medicine, prescription, meds",
        frames="be on?; be prescribed; take?",
        ends="come_off?",
    ),
    _a(
        "volunteering",
        True,
        "Where or with whom the person volunteers.",
        frames="volunteer at; volunteer with; volunteer for",
        entities="ORG",
    ),
    _a(
        "current_project",
        True,
        "A project the person is working on.",
        nouns="project, side project",
        frames="work on?; build?",
    ),
    _a(
        "reading",
        False,
        "The book the person is currently reading.",
        nouns="book",
        frames="read?; finish?",
        entities="WORK_OF_ART",
    ),
    _a(
        "name",
        False,
        "The person's own name.",
        nouns="name",
        frames="be called; go by",
        entities="PERSON",
    ),
    _a(
        "age",
        False,
        "How old the person is.",
        nouns="age",
        entities="DATE CARDINAL",
    ),
    _a(
        "birthday",
        False,
        "The date of the person's birthday.",
        nouns="birthday, date of birth, birth date",
        entities="DATE",
    ),
    _a(
        "nationality",
        False,
        "The person's nationality or citizenship.",
        nouns="nationality, citizenship",
        entities="NORP",
    ),
    _a(
        "email",
        False,
        "The person's email address.",
        nouns="email, email address, e-mail",
    ),
    _a(
        "phone_number",
        False,
        "The person's phone number.",
        nouns="phone number, number, mobile number",
    ),
    _a(
        "likes",
        True,
        "Something the person likes, loves or enjoys.",
        frames="like; love; enjoy; adore; be +fan of",
    ),
    _a(
        "dislikes",
        True,
        "Something the person dislikes or cannot stand.",
        frames="hate; dislike; detest",
    ),
)

#: the family of relations ("relation:sister"): one person holds several of most of them; a relative
#: who dies is no longer one
_RELATION = Attribute(
    "relation",
    True,
    "A relative, friend or acquaintance of the person, named by how they are related.",
    frames=_frames("pass_away; die", ends=True),
    entities=("PERSON",),
)
#: words for the relations of the family, each with the role it is keyed under ("relation:<role>")
_RELATION_WORDS = """
    sister: sister, sis; brother: brother, bro; sibling: sibling; son: son; daughter: daughter;
    child: child, kid, baby; cousin: cousin; aunt: aunt, auntie; uncle: uncle;
    grandmother: grandmother, grandma, granny, nan, nana; grandfather: grandfather, grandpa, granddad;
    niece: niece; nephew: nephew; friend: friend, buddy, pal; best_friend: best friend, bff;
    roommate: roommate, flatmate, housemate; colleague: colleague, coworker, co-worker, teammate;
    neighbour: neighbour, neighbor; mentor: mentor; stepmother: stepmother, stepmom, stepmum;
    stepfather: stepfather, stepdad; mother_in_law: mother-in-law; father_in_law: father-in-law;
    ex: ex, ex-partner, ex-wife, ex-husband, ex-boyfriend, ex-girlfriend
"""


@cache
def _relation_index() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _RELATION_WORDS.split(";"):
        role, _, words = group.partition(":")
        for word in words.split(","):
            out[" ".join(word.split())] = "relation:" + role.strip()
    for attr in ATTRIBUTES:
        if attr.name.startswith("relation:"):
            for noun in attr.nouns:
                out.setdefault(noun, attr.name)
    return out


def relation(noun: str) -> str | None:
    """The predicate of the relation a noun names ("mum" -> "relation:mother", "wife" ->
    "relation:partner", "sis" -> "relation:sister"), None for a noun that names no relation."""
    return _relation_index().get(" ".join(noun.lower().split()))


def is_pet(noun: str) -> bool:
    """Whether a noun names a kind of pet ("dog", "kitten")."""
    return " ".join(noun.lower().split()) in _PET_KINDS


_PET_KINDS = frozenset(" ".join(p.split()) for p in _PETS.split(",") if p.strip())
#: the family of preferences ("preference:coffee"): one favourite per topic
_PREFERENCE = Attribute(
    "preference",
    False,
    "Something the person prefers or names as their favourite.",
)


@cache
def _index() -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for attr in ATTRIBUTES:
        for name in (attr.name, *attr.aliases):
            out.setdefault(name, attr)
    return out


@cache
def _noun_index() -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for attr in ATTRIBUTES:
        for noun in attr.nouns:
            out.setdefault(noun.lower(), attr)
    return out


@cache
def _value_index() -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for attr in ATTRIBUTES:
        for value in attr.values:
            out.setdefault(value.lower(), attr)
    return out


def by_name(predicate: str) -> Attribute | None:
    """The attribute a predicate names: its canonical name or an alias ("preference:editor" is
    ``editor``); ``relation:<role>`` and ``preference:<topic>`` not listed fall in their family.
    None for a predicate the inventory does not know."""
    attr = _index().get(predicate)
    if attr is not None:
        return attr
    if predicate.startswith("relation:"):
        return _RELATION
    if predicate.startswith("preference:"):
        return _PREFERENCE
    return None


def canonical(predicate: str) -> str:
    """The canonical name of a predicate ("relation:wife" -> "relation:partner"); a family member
    or an unknown predicate is returned as it is."""
    attr = _index().get(predicate)
    return attr.name if attr is not None else predicate


def is_multi_valued(predicate: str) -> bool:
    """Whether a second value of ``predicate`` sits beside the first instead of replacing it. An
    unknown predicate is single-valued (a new value replaces the old)."""
    attr = by_name(predicate)
    return attr is not None and attr.multi


def description(predicate: str) -> str | None:
    """The one-sentence description of the attribute ``predicate`` names, None when unknown."""
    attr = by_name(predicate)
    return attr.description if attr is not None else None


def descriptions() -> tuple[str, ...]:
    """Every attribute's description, in :data:`ATTRIBUTES` order: embed these once (one row each)
    and pass the matrix to :func:`nearest`."""
    return tuple(a.description for a in ATTRIBUTES)


def for_noun(noun: str) -> Attribute | None:
    """The attribute a head noun names ("employer", "boss", "climbing gym"), None when none does."""
    return _noun_index().get(" ".join(noun.lower().split()))


def for_value(value: str) -> Attribute | None:
    """The attribute a value gives away by itself ("vegan", "Italian", "nurse"), or by its first word, a
    make ("iPhone 15", "Kia Niro EV"); None otherwise."""
    words = value.lower().split()
    index = _value_index()
    return index.get(" ".join(words)) or (index.get(words[0]) if len(words) > 1 else None)


def frames_for(verb: str) -> tuple[tuple[Attribute, Frame], ...]:
    """Every (attribute, frame) whose verb is ``verb`` (a lemma, with its particle: "hand in")."""
    return _verb_index().get(" ".join(verb.lower().split()), ())


@cache
def _verb_index() -> dict[str, tuple[tuple[Attribute, Frame], ...]]:
    out: dict[str, list[tuple[Attribute, Frame]]] = {}
    for attr in ATTRIBUTES:
        for frame in attr.frames:
            out.setdefault(frame.verb, []).append((attr, frame))
    return {verb: tuple(pairs) for verb, pairs in out.items()}


def verbs() -> frozenset[str]:
    """Every frame verb of the inventory (lemmas, particles included)."""
    return frozenset(_verb_index())


FloatArray = npt.NDArray[np.floating]


def nearest(
    vector: Sequence[float] | FloatArray,
    description_vectors: FloatArray,
    *,
    threshold: float = -1.0,
    margin: float = 0.0,
    among: Iterable[str] | None = None,
) -> tuple[Attribute, float] | None:
    """The attribute whose description vector is nearest (cosine) to ``vector``, with the cosine.

    ``description_vectors`` holds one row per attribute, in :data:`ATTRIBUTES` order (the caller
    embeds :func:`descriptions`). ``among`` limits the choice to those predicate names. None when
    the best cosine is below ``threshold``, ahead of the second best by less than ``margin``, or there
    is nothing to choose from.
    """
    matrix = np.asarray(description_vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(ATTRIBUTES):
        raise ValueError(f"description_vectors must have one row per attribute ({len(ATTRIBUTES)})")
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(v) or 1.0)
    scores = (matrix @ v) / np.where(norms == 0, 1.0, norms)
    if among is not None:
        allowed = {canonical(n) for n in among}
        mask = np.array([a.name in allowed for a in ATTRIBUTES])
        if not mask.any():
            return None
        scores = np.where(mask, scores, -np.inf)
    order = np.argsort(-scores)
    best = int(order[0])
    score = float(scores[best])
    runner_up = float(scores[order[1]]) if len(order) > 1 else -np.inf
    if score < threshold or score - runner_up < margin:
        return None
    return ATTRIBUTES[best], score
