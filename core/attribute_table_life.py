"""The inventory's attributes of health, care, learning, pastimes, services, identity and tastes.

Data only, as core/attribute_table.py (home, work, people and belongings) is; core/attributes.py
joins the tables into ATTRIBUTES, in this order.
"""

from __future__ import annotations

from veramem_desktop.core.attribute_kinds import Attribute
from veramem_desktop.core.attribute_kinds import make as _a

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

#: how a service is taken up or kept, whoever provides it ("we're with Aviva", "went with Saga", "signed
#: up with Octopus"): weak frames, so the value or the sentence must name the attribute too (a name
#: of it, or a noun of it: "went with Saga for the home insurance")
_SERVED = "; be with?; go with?; stay with?; switch to?; sign_up with?"
#: how a company's service is given up ("left Barclays", "cancelled Netflix"); never a practitioner's,
#: who may leave a practice themselves ("Dr Rahman is leaving the practice")
_SERVED_ENDS = "; leave?; cancel?"

LIFE: tuple[Attribute, ...] = (
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
        nouns="gym, fitness club, fitness studio, climbing gym, bouldering gym, health club, studio, "
        "leisure centre, leisure center, sports centre, sports center, fitness centre, fitness center",
        frames="join?; train at?; work_out at; go to?; sign_up at?; sign_up for?",
        ends="quit?; leave?; cancel?",
        entities="ORG FAC",
    ),
    _a(
        "doctor",
        False,
        "The person's doctor or general practitioner.",
        nouns="doctor, gp, physician, general practitioner, family doctor, practice, medical practice, "
        "surgery, gp surgery, health centre, health center, medical centre",
        frames="see?; register with?; switch to?" + _SERVED,
        entities="PERSON ORG",
    ),
    _a(
        "dentist",
        False,
        "The person's dentist.",
        nouns="dentist, dental practice, dental surgery, dental clinic, dental",
        frames=_SERVED,
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
        values="psychology, psych, biology, bio, chemistry, physics, maths, mathematics, economics, sociology, "
        "philosophy, law, geography, anthropology, archaeology, linguistics, engineering, "
        "architecture, accountancy, neuroscience, biochemistry, zoology, geology, criminology, midwifery",
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
        ends="give_up?; quit?; stop?; drop?",
        values=_SPORTS,
    ),
    _a(
        "hobby",
        True,
        "A hobby or pastime the person does in their free time.",
        nouns="hobby, pastime, side project",
        frames="take_up; get into?; do?; start?",
        ends="give_up?; quit?; stop?; pack_in?; drop?",
        values=_HOBBIES,
    ),
    _a(
        "bank",
        False,
        "The bank the person banks with.",
        nouns="bank",
        frames="bank with; open +account with; open +account at; switch to?" + _SERVED,
        ends="close +account with" + _SERVED_ENDS,
        values="monzo, starling, revolut, barclays, natwest, santander, halifax, hsbc, tsb, n26, first direct, "
        "metro bank, co-op bank",
        entities="ORG",
    ),
    _a(
        "mobile_provider",
        False,
        "The mobile phone carrier or network provider the person is with.",
        nouns="carrier, mobile provider, network, phone plan, mobile plan, provider, telecom, telecoms, sim",
        frames="port +number to; be on?; switch to?" + _SERVED,
        values="giffgaff, vodafone, o2, smarty, lebara, voxi, lycamobile, tesco mobile, id mobile, sky mobile, "
        "t-mobile, verizon",
        ends=_SERVED_ENDS,
        entities="ORG",
    ),
    _a(
        "mortgage",
        False,
        "The bank or building society that holds the person's mortgage on their home.",
        nouns="mortgage, mortgage lender, lender, building society",
        frames="remortgage with; take +mortgage with; get +mortgage with; switch +mortgage to" + _SERVED,
        ends=_SERVED_ENDS,
        entities="ORG",
    ),
    _a(
        "insurance",
        False,
        "The person's health or car insurance company.",
        nouns="insurance, insurer, health insurance, car insurance, home insurance, house insurance, "
        "contents insurance, travel insurance, pet insurance",
        frames=_SERVED,
        ends=_SERVED_ENDS,
        entities="ORG",
    ),
    _a(
        "streaming_service",
        False,
        "The film and TV streaming service the person subscribes to.",
        nouns="streaming service, streaming subscription, streaming platform, streamer",
        frames="subscribe to?; sign_up for?; switch to?; go with?" + _SERVED,
        ends="cancel?; unsubscribe from?" + _SERVED_ENDS,
        values="netflix, mubi, hulu, disney, disney+, disney plus, hbo max, prime video, amazon prime, "
        "apple tv, apple tv+, paramount+, peacock, now tv, crunchyroll, britbox",
        entities="ORG PRODUCT",
    ),
    _a(
        "internet_provider",
        False,
        "The company that provides the person's home broadband or internet.",
        nouns="broadband, broadband provider, internet provider, internet, isp, fibre provider, wifi provider",
        frames="switch to?; go with?; sign_up with?" + _SERVED,
        ends="cancel?; leave?" + _SERVED_ENDS,
        values="hyperoptic, plusnet, talktalk, virgin media, community fibre, xfinity, comcast, spectrum",
        entities="ORG",
    ),
    _a(
        "energy_supplier",
        False,
        "The company that supplies the person's gas and electricity.",
        nouns="energy supplier, energy provider, energy company, electricity supplier, gas supplier, "
        "gas and electric",
        frames="switch to?; go with?" + _SERVED,
        values="british gas, octopus, octopus energy, edf, e.on, eon, ovo, ovo energy, scottish power, sse, "
        "npower, shell energy, so energy, utility warehouse, ecotricity, good energy, agl, origin energy, "
        "genesis energy, contact energy, meridian energy, con edison, pg&e, eskom",
        ends=_SERVED_ENDS,
        entities="ORG",
    ),
    _a(
        "childcare",
        False,
        "The childminder, nanny, nursery or babysitter who looks after the person's children.",
        nouns="childminder, child minder, nanny, nursery, daycare, day care, creche, crèche, babysitter, "
        "au pair, childcare, child care",
        frames="switch to?; move to?" + _SERVED,
        entities="PERSON ORG",
    ),
    _a(
        "hairdresser",
        False,
        "The hairdresser, salon or barber the person goes to.",
        nouns="hairdresser, hair salon, salon, barber, barbers, barbershop, stylist",
        frames=_SERVED,
        entities="ORG PERSON",
    ),
    _a(
        "pharmacy",
        False,
        "The pharmacy the person gets their prescriptions from.",
        nouns="pharmacy, chemist, chemists",
        frames="switch to?" + _SERVED,
        values="boots, lloydspharmacy, lloyds pharmacy, superdrug, well pharmacy, rowlands, walgreens, cvs, "
        "rite aid, dis-chem, clicks, chemist warehouse, shoppers drug mart",
        ends=_SERVED_ENDS,
        entities="ORG",
    ),
    _a(
        "vet",
        False,
        "The vet practice or animal hospital that looks after the person's pets.",
        nouns="vet, vets, vet practice, vets practice, veterinary practice, veterinary surgery, vet clinic, "
        "veterinary clinic, animal hospital, veterinary hospital",
        frames="register with?; switch to?; move to?" + _SERVED,
        entities="ORG FAC PERSON",
    ),
    _a(
        "cafe",
        False,
        "The café or coffee shop the person usually goes to.",
        nouns="coffee shop, coffee place, café, cafe, coffee spot, go-to, local",
        entities="ORG FAC",
    ),
    _a(
        "savings_goal",
        False,
        "What the person is saving money for.",
        nouns="savings, savings goal, savings pot, savings target",
        frames="save for; save up for",
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
        values="sertraline, citalopram, fluoxetine, mirtazapine, cetirizine, loratadine, fexofenadine, metformin, "
        "warfarin, apixaban, rivaroxaban, levothyroxine, omeprazole, lansoprazole, amlodipine, ramipril, "
        "atorvastatin, simvastatin, salbutamol, propranolol, insulin, methotrexate, adalimumab",
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
