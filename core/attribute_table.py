"""The inventory's attributes of home, work, people and belongings (the rest: core/attribute_table_life.py).

Data only: each attribute as core/attribute_kinds.make reads it. core/attributes.py joins the tables
into ATTRIBUTES, in this order.
"""

from __future__ import annotations

from veramem_desktop.core.attribute_kinds import Attribute
from veramem_desktop.core.attribute_kinds import make as _a

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
_PETS = """
    dog, puppy, pup, cat, kitten, hamster, rabbit, bunny, parrot, budgie, bird, fish, turtle, tortoise,
    horse, pony, guinea pig, snake, lizard, ferret, gecko, chinchilla, goldfish
"""
#: kinds of pet, as their nouns
PETS = frozenset(" ".join(p.split()) for p in _PETS.split(",") if p.strip())

HOME_WORK_PEOPLE: tuple[Attribute, ...] = (
    _a(
        "lives_in",
        False,
        "The city, town or country where the person lives and has their home.",
        nouns="home, city, town, hometown, home town, address, home address, location, place, country, "
        "flat, apartment, house, new place, bungalow, cottage, terrace, care home, studio flat",
        frames="live in; reside in; stay in; be based in; move to; relocate to; settle in; move_back to; "
        "emigrate to; move into; settle at; settle into; be settled in; be settled at; move_out to; move_away to; buy?; rent?; find?; complete on?",
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
        "accept +offer at; accept +offer with; "
        "be hired by; be hired at; sign with; teach at; lecture at; move to?; switch to?; be poached by; land +job at; land +job with",
        ends="quit?; leave?; hand_in +notice; give +notice; give +notice at; resign from; resign; be fired from; "
        "be laid off from; be let_go from; retire from; retire; walk_out of",
        entities="ORG",
        aliases="employer",
    ),
    _a(
        "occupation",
        False,
        "The person's job title, role or profession, what they do for a living.",
        nouns="profession, occupation, role, title, position, job title, job",
        frames="work as; be hired as; start as; retrain as; become; be promoted to; train as; qualify as",
        values=_OCCUPATIONS,
        aliases="role job",
    ),
    _a(
        "team",
        False,
        "The team, department, ward or group the person belongs to at work.",
        nouns="team, department, squad, unit, division, ward",
        frames="join?; move to?; transfer to?; be on?; switch to?; land on?; be put on?",
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
        "relation:landlord",
        False,
        "The person's landlord or the letting agency they rent their home from.",
        nouns="landlord, landlady, letting agent, letting agency, property manager",
        frames="rent from",
        entities="PERSON ORG",
        aliases="landlord",
    ),
    _a(
        "relation:partner",
        False,
        "The person's romantic partner: girlfriend, boyfriend, wife, husband or spouse.",
        nouns="partner, wife, husband, spouse, boyfriend, girlfriend, fiance, fiancee, fiancé, fiancée",
        frames="date; marry; be married to; be engaged to; get engaged to; get married to; be seeing; "
        "pop +question to; propose to; see +someone; date +someone; "
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
        nouns="mother, mom, mum, mam, mama, mummy, mommy",
        entities="PERSON",
    ),
    _a(
        "relation:father",
        False,
        "The person's father.",
        nouns="father, dad, daddy, papa",
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
        nouns="bike, bicycle, e-bike, road bike, mountain bike, gravel bike, folding bike, cargo bike",
        frames="ride",
        # makes of bicycle, as a car's makes give a car away
        values="brompton, canyon, trek, cannondale, bianchi, cervelo, orbea, boardman, ribble, pinarello, "
        "vanmoof, cube, merida, raleigh, pashley, tern, colnago, dahon, specialized",
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
        "editing_app",
        False,
        "The app or software the person edits their videos or photos in.",
        nouns="video editor, photo editor, editing app, editing software, editing program, editing tool",
        frames="edit in; edit on; edit with?; switch to?",
        ends="give_up on?; drop?",
        values="capcut, premiere, premiere pro, davinci, davinci resolve, resolve, final cut, final cut pro, "
        "imovie, lumafusion, vn, inshot, filmora, lightroom, photoshop, affinity photo, canva",
    ),
    _a(
        "notes_app",
        False,
        "The app the person keeps their notes in.",
        nouns="notes app, note-taking app, note app, notes",
        values="obsidian, notion, evernote, onenote, logseq, bear, apple notes, google keep, joplin, roam, "
        "org-mode, simplenote, standard notes",
    ),
    _a(
        "browser",
        False,
        "The web browser the person uses.",
        nouns="browser, web browser",
        values="firefox, chrome, safari, edge, brave, vivaldi, opera, arc",
    ),
)
